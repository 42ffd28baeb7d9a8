//! Issue 23, items 2 and 3: the data directory (unsold outcomes, operator
//! keys) is 0700 and its files 0600 whatever the umask, SQLite's `-wal`
//! and `-shm` included; a file other users can read is named at start, and
//! refused with `--strict-permissions`; a data directory the page server
//! would send files of is refused.
#![cfg(unix)]

use eldorado_server::clock::SystemClock;
use eldorado_server::data_dir::{self, DataDirError, TooOpen};
use eldorado_server::keys;
use eldorado_server::{Config, ServeError};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A server's configuration on `data` with a page of its own (a `--web`
/// holding `index.html` and `www/`).
fn config(data: &Path, web: &Path) -> Config {
    std::fs::create_dir_all(web.join("www/pkg")).unwrap();
    std::fs::write(web.join("index.html"), "<!doctype html>").unwrap();
    let mut config = Config::new(data);
    config.web_dir = web.to_owned();
    config.demo = true;
    config.demo_seed = Some(7);
    config
}

/// The most permissive umask, as a careless service manager may leave it:
/// the modes must not depend on it. The umask belongs to the process, so
/// every test of this binary sets the same one.
fn permissive_umask() {
    // SAFETY: umask only sets the process's file mode mask.
    unsafe {
        libc::umask(0);
    }
}

#[test]
fn a_new_data_directory_is_0700_and_every_file_in_it_0600_whatever_the_umask() {
    permissive_umask();
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("nested/data");
    let config = config(&data, &root.path().join("web"));
    let too_open = data_dir::prepare(&config).unwrap();
    assert_eq!(too_open, vec![], "nothing is too open in a new directory");
    // What the server's start creates in it: the store (SQLite opens its
    // -wal and -shm files) and the operator's keys.
    let store = config
        .database()
        .open(1, Arc::new(SystemClock))
        .expect("the store opens");
    keys::operator_keys(None, &*store, &data).expect("the keys are created");
    assert_eq!(mode(&data), 0o700);
    let names: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in [
        "eldorado.sqlite3",
        "eldorado.sqlite3-wal",
        "eldorado.sqlite3-shm",
        "operator-ed25519.key",
        "operator-api.key",
    ] {
        assert!(names.contains(&name.to_owned()), "{name} in {names:?}");
    }
    for name in &names {
        assert_eq!(mode(&data.join(name)), 0o600, "{name}");
    }
    assert_eq!(data_dir::too_open_under(&data).unwrap(), vec![]);
    drop(store);
}

#[test]
fn files_others_can_read_are_named_and_refused_with_strict_permissions() {
    permissive_umask();
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let mut config = config(&data, &root.path().join("web"));
    data_dir::prepare(&config).unwrap();
    let db = data.join("eldorado.sqlite3");
    std::fs::create_dir(data.join("exports")).unwrap();
    let export = data.join("exports/block-1.jsonl");
    std::fs::write(&export, "{}").unwrap();
    chmod(&db, 0o644);
    chmod(&export, 0o640);
    chmod(&data.join("exports"), 0o755);
    let expected = vec![
        TooOpen {
            path: db.clone(),
            mode: 0o644,
        },
        TooOpen {
            path: data.join("exports"),
            mode: 0o755,
        },
        TooOpen {
            path: export.clone(),
            mode: 0o640,
        },
    ];
    assert_eq!(
        data_dir::prepare(&config).unwrap(),
        expected,
        "warned, started"
    );
    config.strict_permissions = true;
    match data_dir::prepare(&config) {
        Err(DataDirError::TooOpen(found)) => assert_eq!(found, expected),
        other => panic!("{other:?}"),
    }
    // The start-up path refuses before it opens anything.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let refused = runtime.block_on(eldorado_server::serve(config.clone(), async {}));
    match refused {
        Err(ServeError::DataDir(e)) => {
            let text = e.to_string();
            assert!(text.contains("--strict-permissions"), "{text}");
            assert!(text.contains(&db.display().to_string()), "{text}");
        }
        other => panic!("{other:?}"),
    }
    for path in [&db, &export] {
        chmod(path, 0o600);
    }
    chmod(&data.join("exports"), 0o700);
    assert_eq!(data_dir::prepare(&config).unwrap(), vec![]);
}

#[test]
fn a_data_directory_served_by_the_page_server_is_refused() {
    let web = tempfile::tempdir().unwrap();
    let inside_www = config(&web.path().join("www/data"), web.path());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    match runtime.block_on(eldorado_server::serve(inside_www, async {})) {
        Err(ServeError::DataDir(DataDirError::Served { url, .. })) => {
            assert_eq!(url, "/www/data")
        }
        other => panic!("{other:?}"),
    }
    // A link from the served tree to the data directory is not a way in
    // (the static files refuse it), and a data directory beside www/ is
    // reached by no served path: both start.
    let beside = config(&web.path().join("data"), web.path());
    assert!(data_dir::prepare(&beside).is_ok());
    // A database file given by path inside the served tree is refused too.
    let mut served_db = config(&web.path().join("data"), web.path());
    served_db.database = Some(eldorado_server::database::Database::Sqlite(
        web.path().join("www/pkg/eldorado.sqlite3"),
    ));
    match data_dir::prepare(&served_db) {
        Err(DataDirError::Served { what, url, .. }) => {
            assert_eq!(what, "the database");
            assert_eq!(url, "/www/pkg/eldorado.sqlite3");
        }
        other => panic!("{other:?}"),
    }
}
