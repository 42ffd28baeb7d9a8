//! `eldorado block generate` and `eldorado block audit` as an operator runs them.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn eldorado(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn generate(dir: &Path, stake: &str, seed: &str) -> String {
    let out = dir.join(format!("block-{stake}.jsonl"));
    let out_text = out.to_str().unwrap().to_owned();
    let output = eldorado(&[
        "block", "generate", "--stake", stake, "--out", &out_text, "--seed", seed,
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    out_text
}

#[test]
fn a_fresh_block_at_each_stake_passes_its_audit() {
    let dir = tempfile::tempdir().unwrap();
    for (stake, seed) in [("50", "1"), ("100", "2"), ("200", "3")] {
        let file = generate(dir.path(), stake, seed);
        let output = eldorado(&["block", "audit", &file]);
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
        assert_eq!(stdout.lines().count(), 1, "one-line verdict: {stdout}");
        assert!(stdout.starts_with("OK: block 1"), "{stdout}");
        assert!(stdout.contains("400000 tickets, 60440 winners"), "{stdout}");
        let cents: u64 = stake.parse().unwrap();
        assert!(
            stdout.contains(&format!("{} cents of prizes", 280_000 * cents)),
            "{stdout}"
        );
        let header: serde_json::Value =
            serde_json::from_str(fs::read_to_string(&file).unwrap().lines().next().unwrap())
                .unwrap();
        for field in ["block", "stake_cents", "tickets", "root"] {
            assert!(header.get(field).is_some(), "header lacks {field}");
        }
    }
}

#[test]
fn a_tampered_export_fails_its_audit_and_names_the_ticket() {
    let dir = tempfile::tempdir().unwrap();
    let file = generate(dir.path(), "100", "9");
    let content = fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = content.lines().map(str::to_owned).collect();
    // Give a losing ticket a prize of 2 €: rules, leaf, counts and root all break.
    let index = lines
        .iter()
        .position(|l| l.contains("\"prize_cents\":0,\"extras\":0"))
        .unwrap();
    lines[index] = lines[index].replace("\"prize_cents\":0,", "\"prize_cents\":200,");
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let output = eldorado(&["block", "audit", &file]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.starts_with("FAILED"), "{stdout}");
    assert!(
        stdout.contains(&format!("position {}", index - 1)),
        "{stdout}"
    );
}

#[test]
fn bad_arguments_give_one_line_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.jsonl");
    fs::write(&corrupt, "{\"format\": not json\n").unwrap();
    let truncated = dir.path().join("truncated.jsonl");
    let good = generate(dir.path(), "50", "4");
    let content = fs::read_to_string(&good).unwrap();
    let head = content.lines().take(3).collect::<Vec<_>>().join("\n");
    fs::write(&truncated, head + "\n{\"position\":2,").unwrap();
    let out = dir.path().join("x.jsonl");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "block",
                "generate",
                "--stake",
                "70",
                "--out",
                out.to_str().unwrap(),
            ],
            "invalid stake 70",
        ),
        (
            vec!["block", "audit", "/nonexistent/block.jsonl"],
            "cannot open",
        ),
        (
            vec!["block", "audit", corrupt.to_str().unwrap()],
            "not an export header",
        ),
        (
            vec!["block", "audit", truncated.to_str().unwrap()],
            "line 4: not a ticket",
        ),
        (
            vec![
                "block",
                "generate",
                "--stake",
                "100",
                "--out",
                "/nonexistent/dir/x.jsonl",
            ],
            "cannot create",
        ),
    ];
    for (args, expected) in cases {
        let output = eldorado(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(!out.exists(), "a refused stake writes no file");
}

/// tools/independent_verifier.py was written from docs/PROTOCOL.md alone:
/// it must agree with the engine on a real export, and catch a changed salt.
#[test]
fn an_independent_verifier_written_from_the_protocol_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let file = generate(dir.path(), "50", "21");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tools/independent_verifier.py"
    );
    let run = |path: &str| {
        Command::new("python3")
            .arg(script)
            .arg(path)
            .output()
            .expect("python3 runs")
    };
    let output = run(&file);
    assert!(
        output.status.success(),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert!(text(&output.stdout).starts_with("OK: 400000 leaves"));
    let content = fs::read_to_string(&file).unwrap();
    let salt_at = content.find("\"salt\":\"").unwrap() + 8;
    let mut bytes = content.into_bytes();
    bytes[salt_at] = if bytes[salt_at] == b'0' { b'1' } else { b'0' };
    let tampered_file = dir.path().join("tampered.jsonl");
    fs::write(&tampered_file, bytes).unwrap();
    let output = run(tampered_file.to_str().unwrap());
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stdout).contains("position 0: leaf differs"),
        "{}",
        text(&output.stdout)
    );
}
