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

/// The library's files by module path (`store::sqlite` for `store/sqlite/mod.rs`),
/// each with its code but its tests (a `#[cfg(test)]` module at its end, which
/// may name any layer it tests): every file under `src/` but the binary's
/// (`main.rs`, `cli/`).
fn library() -> std::collections::BTreeMap<String, (String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    sources(&src)
        .into_iter()
        .map(|(path, code)| (path.strip_prefix(&src).unwrap().to_string_lossy().into_owned(), code))
        .filter(|(path, _)| path != "main.rs" && !path.starts_with("cli/"))
        .map(|(path, code)| {
            let code = code.split("#[cfg(test)]").next().unwrap_or_default().to_string();
            (module_of(&path), (path, code))
        })
        .collect()
}

/// The module path of the file `path` of `src/`.
fn module_of(path: &str) -> String {
    let path = path.trim_end_matches(".rs").trim_end_matches("/mod").trim_end_matches("lib");
    path.trim_end_matches('/').replace('/', "::")
}

/// Every path a `use` tree names: `a::{b, c::{d, e}}` names `a::b`, `a::c::d` and `a::c::e`.
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.split("as").next().unwrap_or_default().trim_end_matches("::").to_string()];
    };
    let (prefix, inner) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|part| !part.is_empty())
        .flat_map(|part| use_paths(part).into_iter().map(|path| format!("{prefix}{path}")))
        .collect()
}

/// The `use` statements of `code`: each path, and whether it is re-exported (`pub use`).
fn uses(code: &str) -> Vec<(String, bool)> {
    use_statements(code)
        .into_iter()
        .flat_map(|(statement, public)| use_paths(&code[statement]).into_iter().map(move |path| (path, public)))
        .collect()
}

/// Where each `use` statement of `code` names its tree (between `use ` and
/// `;`), and whether it is re-exported: its line begins with `pub`.
fn use_statements(code: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ").map(|at| from + at) {
        let line = code[..at].rsplit(['\n', ';', '{', '}']).next().unwrap_or_default().trim();
        from = at + 4;
        let Some(end) = code[from..].find(';').map(|end| from + end) else { break };
        // At a statement's start, after nothing but its visibility.
        if line.is_empty() || line == "pub" || (line.starts_with("pub(") && line.ends_with(')')) {
            found.push((from..end, !line.is_empty()));
            from = end;
        }
    }
    found
}

/// The module paths that `path`, named in module `module` whose child modules
/// are `children`, refers to, made absolute; none for another crate's.
fn absolute(module: &str, children: &[String], path: &str) -> Option<Vec<String>> {
    let mut segments: Vec<String> = path.split("::").map(String::from).collect();
    let mut base: Vec<String> = module.split("::").filter(|s| !s.is_empty()).map(String::from).collect();
    match segments[0].as_str() {
        "crate" | "qttt" => base.clear(),
        "self" => {}
        "super" => {
            while segments.first().is_some_and(|s| s == "super") {
                base.pop();
                segments.remove(0);
            }
            base.extend(segments);
            return Some(base);
        }
        first if children.iter().any(|child| child == first) => {
            base.extend(segments);
            return Some(base);
        }
        _ => return None,
    }
    segments.remove(0);
    base.extend(segments);
    Some(base)
}

/// The files each file of `house` depends on: those that define what its code
/// names, through `use` or a path, followed through re-exports to where it is
/// defined. A re-export (`pub use`) hands a name on and is no dependency of its
/// own, nor is the declaration of a child module.
fn dependencies(
    house: &std::collections::BTreeMap<String, (String, String)>,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let children = |code: &str| -> Vec<String> {
        code.lines()
            .filter_map(|line| {
                line.trim().trim_start_matches("pub ").trim_start_matches("pub(crate) ").strip_prefix("mod ")
            })
            .map(|rest| rest.trim_end_matches(';').trim().to_string())
            .filter(|name| !name.contains(' ') && !name.contains('{'))
            .collect()
    };
    // Where `segments` (absolute) is defined: the file of its longest module prefix,
    // or, when that file re-exports the name, where that re-export leads.
    let defined = |segments: &[String]| -> Option<String> {
        let mut segments = segments.to_vec();
        for _ in 0..8 {
            let prefix = (0..=segments.len()).rev().find(|n| house.contains_key(&segments[..*n].join("::")))?;
            let module = segments[..prefix].join("::");
            let Some(name) = segments.get(prefix) else { return Some(house[&module].0.clone()) };
            let (_, code) = &house[&module];
            let reexport =
                uses(code).into_iter().find(|(path, public)| *public && path.rsplit("::").next() == Some(name));
            match reexport.and_then(|(path, _)| absolute(&module, &children(code), &path)) {
                Some(target) => segments = target.into_iter().chain(segments[prefix + 1..].iter().cloned()).collect(),
                None => return Some(house[&module].0.clone()),
            }
        }
        None
    };
    let mut graph = std::collections::BTreeMap::new();
    for (module, (file, code)) in house {
        let children = children(code);
        let mut named: Vec<String> =
            uses(code).into_iter().filter(|(_, public)| !public).map(|(path, _)| path).collect();
        let mut outside_uses = code.clone();
        for (statement, _) in use_statements(code).into_iter().rev() {
            outside_uses.replace_range(statement, "");
        }
        for start in ["crate::", "super::", "self::"]
            .iter()
            .map(|s| s.to_string())
            .chain(children.iter().map(|c| format!("{c}::")))
        {
            let mut rest = outside_uses.as_str();
            while let Some(at) = rest.find(&start) {
                // A visibility, `pub(in crate::store)`, names no dependency.
                let boundary = rest[..at].chars().last().is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != ':')
                    && !rest[..at].ends_with("pub(in ");
                let path: String =
                    rest[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
                if boundary {
                    named.push(path.trim_end_matches(':').to_string());
                }
                rest = &rest[at + start.len()..];
            }
        }
        let targets: std::collections::BTreeSet<String> = named
            .iter()
            .filter_map(|path| absolute(module, &children, path))
            .filter_map(|segments| defined(&segments))
            .filter(|target| target != file)
            .collect();
        graph.insert(file.clone(), targets);
    }
    graph
}

/// Each pair of files of `graph` that depend on each other, directly or round a circle.
fn circles(graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Vec<(String, String)> {
    let reaches = |from: &String, to: &String| {
        let (mut seen, mut next) = (std::collections::BTreeSet::new(), vec![from]);
        while let Some(file) = next.pop() {
            if file == to {
                return true;
            }
            if seen.insert(file) {
                next.extend(graph.get(file).into_iter().flatten());
            }
        }
        false
    };
    let mut found = Vec::new();
    for (file, targets) in graph {
        for target in targets {
            if file < target && reaches(target, file) {
                found.push((file.clone(), target.clone()));
            }
        }
    }
    found
}

#[test]
fn no_two_files_depend_on_each_other_directly_or_round_a_circle() {
    assert_eq!(circles(&dependencies(&library())), [] as [(String, String); 0]);
}

#[test]
fn the_circle_check_finds_a_circle_through_a_re_export_and_none_without_one() {
    let house = |files: &[(&str, &str)]| {
        files.iter().map(|(path, code)| (module_of(path), (path.to_string(), code.to_string()))).collect()
    };
    let circle = house(&[
        (
            "store/mod.rs",
            "mod sqlite;\nmod error;\npub use error::Failure;\nuse sqlite::Backend;\npub struct Settings;",
        ),
        ("store/sqlite/mod.rs", "use super::{Failure, Settings};\npub struct Backend;"),
        ("store/error.rs", "pub struct Failure;"),
    ]);
    assert_eq!(circles(&dependencies(&circle)), [("store/mod.rs".to_string(), "store/sqlite/mod.rs".to_string())]);
    let layered = house(&[
        ("store/mod.rs", "mod sqlite;\nmod error;\npub use error::Failure;\nuse sqlite::Backend;"),
        ("store/sqlite/mod.rs", "use super::Failure;\nuse crate::store::error::Failure as Same;\npub struct Backend;"),
        ("store/error.rs", "pub struct Failure;"),
    ]);
    let graph = dependencies(&layered);
    assert_eq!(circles(&graph), [] as [(String, String); 0]);
    assert_eq!(graph["store/sqlite/mod.rs"].iter().collect::<Vec<_>>(), ["store/error.rs"]);
}
