//! `eldorado block generate` and `eldorado block audit`.

use clap::Subcommand;
use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::export::{Audit, ExportHeader, ExportRow};
use eldorado_engine::{
    generate_block, Block, BlockRng, Money, Params, SeedableRng, SignedCommitment, Stake,
};
use rand::rngs::OsRng;
use rand::TryRngCore;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum BlockCommand {
    /// Write a new block's disclosure export (JSON Lines).
    Generate {
        /// Stake in cents: 50, 100 or 200.
        #[arg(long)]
        stake: u64,
        /// Where to write the export.
        #[arg(long)]
        out: PathBuf,
        /// Block id written in the commitment.
        #[arg(long, default_value_t = 1)]
        block: u64,
        /// Fixed seed, for tests and reproducible demos only; the default
        /// draws the generator's seed from the operating system.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Recompute every ticket, the exact prize counts and the root of an export.
    Audit {
        /// The export to check.
        file: PathBuf,
    },
}

pub fn run(command: BlockCommand) -> Result<ExitCode, String> {
    match command {
        BlockCommand::Generate {
            stake,
            out,
            block,
            seed,
        } => generate(stake, &out, block, seed),
        BlockCommand::Audit { file } => audit(&file),
    }
}

fn os_bytes<const N: usize>() -> Result<[u8; N], String> {
    let mut bytes = [0u8; N];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| format!("the operating system gave no randomness: {e}"))?;
    Ok(bytes)
}

fn generate(stake: u64, out: &Path, block_id: u64, seed: Option<u64>) -> Result<ExitCode, String> {
    let stake = Stake::from_cents(stake).map_err(|e| e.to_string())?;
    let mut rng = match seed {
        Some(seed) => BlockRng::seed_from_u64(seed),
        None => BlockRng::from_seed(os_bytes()?),
    };
    let block =
        generate_block(block_id, stake, &Params::default(), &mut rng).map_err(|e| e.to_string())?;
    // The CLI has no operator key of its own: it signs with a fresh one and
    // publishes the public half, so the export is self-checking.
    let key = signing_key_from_secret(os_bytes()?);
    let signed = block.commitment(Money::Real).sign(&key);
    let file = File::create(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut writer = BufWriter::new(file);
    write_export(&block, &signed, &mut writer)
        .and_then(|()| writer.flush())
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!(
        "block {} at {} cents: {} tickets written to {}, root {}",
        block.id,
        stake.cents(),
        block.tickets.len(),
        out.display(),
        block.root()
    );
    Ok(ExitCode::SUCCESS)
}

/// A real-money block's disclosure export: its header, then one row per
/// ticket in position order, a JSON object per line.
pub fn write_export(
    block: &Block,
    signed: &SignedCommitment,
    mut out: impl Write,
) -> std::io::Result<()> {
    serde_json::to_writer(
        &mut out,
        &ExportHeader::new(block, Money::Real, Some(signed)),
    )?;
    out.write_all(b"\n")?;
    for ticket in &block.tickets {
        let row = ExportRow {
            leaf: block
                .tree
                .leaf(ticket.position)
                .expect("one leaf per ticket"),
            ticket: ticket.clone(),
        };
        serde_json::to_writer(&mut out, &row)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn audit(path: &Path) -> Result<ExitCode, String> {
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut lines = BufReader::new(file).lines();
    let read_error = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let first = lines
        .next()
        .ok_or_else(|| format!("{} is empty: no export header", path.display()))?
        .map_err(read_error)?;
    let header: ExportHeader = serde_json::from_str(&first)
        .map_err(|e| format!("{} line 1: not an export header: {e}", path.display()))?;
    let mut audit = Audit::new(header);
    for (index, line) in lines.enumerate() {
        let line = line.map_err(read_error)?;
        let row: ExportRow = serde_json::from_str(&line)
            .map_err(|e| format!("{} line {}: not a ticket: {e}", path.display(), index + 2))?;
        audit.push(&row);
    }
    let report = audit.finish();
    println!("{}", report.verdict());
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
