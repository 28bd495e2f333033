//! The guides against the code: every setting the server reads is documented,
//! and every link between the documents leads somewhere.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The environment variables of the server's settings, as clap reads them.
fn settings_variables() -> BTreeSet<String> {
    let command = qttt::config::Settings::command();
    command.get_arguments().filter_map(|arg| Some(arg.get_env()?.to_str()?.to_string())).collect()
}

/// The variables of `variables` that `guide` never names as `NAME`.
fn undocumented(variables: &BTreeSet<String>, guide: &str) -> Vec<String> {
    variables.iter().filter(|name| !guide.contains(&format!("`{name}`"))).cloned().collect()
}

#[test]
fn every_setting_the_server_reads_is_in_the_operations_guide() {
    let variables = settings_variables();
    assert!(variables.len() >= 20 && variables.contains("DATABASE_URL"), "{variables:?}");
    let guide = read(&root().join("docs/OPERATIONS.md"));
    assert_eq!(undocumented(&variables, &guide), [] as [String; 0]);
}

/// GitHub's anchor of a heading: lower case, spaces as hyphens, and nothing but
/// letters, digits, hyphens and underscores.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The text of a Markdown document outside its fenced code blocks.
fn prose(markdown: &str) -> Vec<&str> {
    let mut in_code = false;
    markdown
        .lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                return false;
            }
            !in_code
        })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    prose(markdown)
        .iter()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|h| anchor_of(h.trim_start_matches('#')))
        .collect()
}

/// The targets of the inline links of `markdown` that lead within the repository.
fn relative_links(markdown: &str) -> Vec<String> {
    let mut links = Vec::new();
    for line in prose(markdown) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let target = rest.split(')').next().unwrap_or_default();
            if !target.contains("://") && !target.starts_with("mailto:") {
                links.push(target.to_string());
            }
        }
    }
    links
}

/// Every link of the document at `path` that leads nowhere: a missing file, or a
/// heading its target does not have.
fn broken_links(path: &Path) -> Vec<String> {
    let folder = path.parent().unwrap();
    let text = read(path);
    relative_links(&text)
        .into_iter()
        .filter(|link| {
            let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target: PathBuf = if file.is_empty() { path.to_path_buf() } else { folder.join(file) };
            if !target.exists() {
                return true;
            }
            let is_markdown = target.extension().is_some_and(|extension| extension == "md");
            !anchor.is_empty() && is_markdown && !anchors(&read(&target)).contains(anchor)
        })
        .collect()
}

fn documents() -> Vec<PathBuf> {
    let mut documents = vec![root().join("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|extension| extension == "md") {
            documents.push(path);
        }
    }
    documents.sort();
    documents
}

#[test]
fn the_readme_is_an_entry_point_and_the_six_guides_are_in_docs() {
    let guides =
        ["docs/API.md", "docs/BOTS.md", "docs/ENGINE.md", "docs/OPERATIONS.md", "docs/PERFORMANCE.md", "docs/RULES.md"];
    let names: Vec<String> =
        documents().iter().map(|path| path.strip_prefix(root()).unwrap().display().to_string()).collect();
    assert_eq!(names, [&["README.md"][..], &guides].concat());
    let readme = read(&root().join("README.md"));
    assert!(readme.lines().count() <= 300, "README.md has {} lines", readme.lines().count());
    for guide in guides {
        assert!(readme.contains(&format!("]({guide})")), "README.md links {guide}");
    }
}

#[test]
fn every_link_between_the_documents_leads_somewhere() {
    let broken: Vec<String> = documents()
        .iter()
        .flat_map(|path| {
            broken_links(path)
                .into_iter()
                .map(|link| format!("{}: {link}", path.strip_prefix(root()).unwrap_or(path).display()))
        })
        .collect();
    assert_eq!(broken, [] as [String; 0]);
}

#[test]
fn the_checks_find_what_they_look_for() {
    // An undocumented setting and a broken link are found.
    let variables = BTreeSet::from(["HOST".to_string(), "NEW_SETTING".to_string()]);
    assert_eq!(undocumented(&variables, "`HOST` is where it listens"), ["NEW_SETTING"]);
    assert_eq!(anchor_of(" The API at a glance"), "the-api-at-a-glance");
    assert_eq!(anchor_of("Resigning, aborting, clocks, rematch"), "resigning-aborting-clocks-rematch");
    let folder = tempfile::tempdir().unwrap();
    let document = folder.path().join("a.md");
    std::fs::write(&document, "# A\n[here](#a) [there](b.md) [gone](#b)\n```\n[code](nowhere.md)\n```\n").unwrap();
    std::fs::write(folder.path().join("b.md"), "# B\n").unwrap();
    assert_eq!(relative_links(&read(&document)), ["#a", "b.md", "#b"]);
    assert_eq!(broken_links(&document), ["#b"]);
}
