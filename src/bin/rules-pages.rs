//! Writes the rules panel's pages, `rules-fr.html` and `rules-en.html`,
//! into the directory given (`scripts/build-web.sh`: `www/pkg`), from the
//! engine and the page's texts (`src/rules_page.rs` says why they are not
//! in the bundle).
//!
//!     cargo run -p eldorado-web --features rules-pages --bin rules-pages -- www/pkg

use eldorado_web::i18n::Lang;
use eldorado_web::rules_page::rules_page;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: rules-pages DIRECTORY");
        return ExitCode::FAILURE;
    };
    for lang in [Lang::Fr, Lang::En] {
        let path = dir.join(format!("rules-{}.html", lang.code()));
        if let Err(error) = std::fs::write(&path, rules_page(lang)) {
            eprintln!("rules-pages: cannot write {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
