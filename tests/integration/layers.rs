//! The rooms of the house, read from the sources: which module may name which.

use std::path::{Path, PathBuf};

/// Every Rust file under `folder`, with its text, comments left out (a comment
/// may speak of another layer; only code depends on one).
fn sources(folder: &Path) -> Vec<(PathBuf, String)> {
    if folder.is_file() {
        return vec![(folder.to_path_buf(), code_of(folder))];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push((path.clone(), code_of(&path)));
        }
    }
    files
}

/// The text of the Rust file at `path`, comments left out.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The files of `src/` within the folder or file `within` whose code names any of
/// `names`, except those in `allowed` (paths relative to `src/`, a folder ending
/// in `/`).
fn naming(names: &[&str], within: &str, allowed: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found: Vec<String> = sources(&src.join(within))
        .into_iter()
        .map(|(path, code)| (path.strip_prefix(&src).unwrap().to_string_lossy().into_owned(), code))
        .filter(|(path, _)| !allowed.iter().any(|allowed| path == allowed || path.starts_with(allowed)))
        .filter(|(_, code)| names.iter().any(|name| code.contains(name)))
        .map(|(path, _)| path)
        .collect();
    found.sort();
    found
}

#[test]
fn only_the_api_and_start_up_name_actix() {
    assert_eq!(naming(&["actix_web", "actix_cors"], "", &["api/", "server.rs", "main.rs"]), [] as [String; 0]);
}

#[test]
fn the_store_knows_neither_the_service_nor_http_and_the_api_no_store() {
    assert_eq!(
        naming(&["crate::api", "crate::error", "crate::service", "crate::config"], "store", &[]),
        [] as [String; 0]
    );
    assert_eq!(naming(&["crate::store"], "api", &[]), [] as [String; 0]);
}

#[test]
fn a_games_record_is_words_below_the_store_and_the_service() {
    let above = ["crate::service", "crate::store", "crate::api", "crate::error", "crate::live", "crate::config"];
    assert_eq!(naming(&above, "record", &[]), [] as [String; 0]);
}

#[test]
fn the_moves_lie_below_the_game_and_the_values_below_the_search_and_the_book() {
    // The rules that a game calls never call the game back.
    assert_eq!(
        naming(&["game::", "collapse::", "graph::", "measurement::"], "engine/moves.rs", &[]),
        [] as [String; 0]
    );
    let below_the_game = ["engine/collapse.rs", "engine/graph.rs", "engine/measurement.rs", "engine/moves.rs"];
    for file in below_the_game {
        assert_eq!(naming(&["game::"], file, &[]), [] as [String; 0], "{file}");
    }
    // The book is read by the search, and made by the bookmaker above it.
    assert_eq!(naming(&["perfect::", "book", "analysis::"], "bot/value.rs", &[]), [] as [String; 0]);
    assert_eq!(naming(&["perfect::", "Solver"], "bot/book.rs", &[]), [] as [String; 0]);
    assert_eq!(naming(&["bookmaker"], "bot", &["bot/mod.rs", "bot/bookmaker.rs"]), [] as [String; 0]);
}

#[test]
fn the_rules_the_simulator_the_bots_and_the_record_are_pure() {
    for pure in ["engine", "quantum", "bot", "record"] {
        let io = ["crate::service", "crate::store", "crate::api", "crate::error", "crate::live", "sqlx", "rusqlite"];
        assert_eq!(naming(&io, pure, &[]), [] as [String; 0], "{pure}");
        assert_eq!(
            naming(&["tokio", "actix", "std::fs", "std::net", "std::time"], pure, &[]),
            [] as [String; 0],
            "{pure}"
        );
    }
}

#[test]
fn the_check_finds_what_it_looks_for() {
    // The check itself can fail: the server does name actix_web.
    assert_eq!(naming(&["actix_web"], "", &["api/", "main.rs"]), ["server.rs"]);
    // And within one file: the bookmaker does name the search.
    assert_eq!(naming(&["Solver"], "bot/bookmaker.rs", &[]), ["bot/bookmaker.rs"]);
}
