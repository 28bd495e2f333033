//! The OpenAPI document and Swagger UI, as served.

use serde_json::Value;

use super::helpers::TestApp;

#[test]
fn the_served_openapi_document_is_the_committed_one() {
    let app = TestApp::spawn();
    let served = app.request("GET", "/api-docs/openapi.json", &[], None);
    assert_eq!(served.status, 200);
    let committed: Value =
        serde_json::from_str(include_str!("../../../openapi/openapi.json")).expect("openapi/openapi.json is JSON");
    assert!(
        served.json() == committed,
        "openapi/openapi.json is out of date: regenerate it with `cargo run -- openapi > openapi/openapi.json`"
    );
    assert_eq!(committed["openapi"], "3.1.0");
}

/// Every `$ref` in `value`, depth first.
fn references(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::String(reference)) = fields.get("$ref") {
                found.push(reference.clone());
            }
            fields.values().for_each(|field| references(field, found));
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, found)),
        _ => {}
    }
}

#[test]
fn every_reference_in_the_document_names_a_component_it_holds() {
    let document: Value = serde_json::from_str(include_str!("../../../openapi/openapi.json")).unwrap();
    let mut found = Vec::new();
    references(&document, &mut found);
    assert!(found.len() > 100, "{}", found.len());
    for reference in found {
        let path = reference.strip_prefix("#/").unwrap_or_else(|| panic!("{reference} is in the document"));
        let target = path.split('/').fold(&document, |at, step| &at[step]);
        assert!(!target.is_null(), "{reference} names nothing");
    }
}

#[test]
fn the_answers_that_seat_a_player_link_to_its_moves_with_its_token() {
    let document: Value = serde_json::from_str(include_str!("../../../openapi/openapi.json")).unwrap();
    for path in ["/api/v1/games", "/api/v1/games/{id}/join"] {
        let links = &document["paths"][path]["post"]["responses"]["201"]["links"];
        for operation in ["place_move", "choose_collapse"] {
            assert_eq!(links[operation]["operationId"], operation, "{path}");
            assert_eq!(
                links[operation]["parameters"],
                serde_json::json!({ "path.id": "$response.body#/game/id",
                    "header.Authorization": "Bearer {$response.body#/seat/token}" })
            );
        }
    }
}

#[test]
fn every_operation_documents_its_problem_answers() {
    let document: Value = serde_json::from_str(include_str!("../../../openapi/openapi.json")).unwrap();
    // The original app's routes answer errors in its own shape, documented inline.
    let original_app = ["/state", "/reset", "/move"];
    for (path, item) in
        document["paths"].as_object().unwrap().iter().filter(|(p, _)| !original_app.contains(&p.as_str()))
    {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            let errors: Vec<&String> = responses.keys().filter(|status| status.starts_with(['4', '5'])).collect();
            assert!(!errors.is_empty() || path == "/healthz", "{method} {path} documents no error");
            for status in errors {
                let reference = responses[status]["$ref"].as_str().unwrap_or_default();
                assert!(reference.starts_with("#/components/responses/"), "{method} {path} {status}");
            }
            assert!(operation["summary"].as_str().is_some_and(|s| !s.is_empty()), "{method} {path}");
        }
    }
    for (name, response) in document["components"]["responses"].as_object().unwrap() {
        let content = &response["content"]["application/problem+json"];
        assert_eq!(content["schema"]["$ref"], "#/components/schemas/Problem", "{name}");
        assert!(content.get("example").is_some() || content.get("examples").is_some(), "{name} has no example");
    }
}

#[test]
fn swagger_ui_loads_the_spec_offline() {
    let app = TestApp::spawn();
    let page = app.request("GET", "/swagger-ui/", &[], None);
    assert_eq!(page.status, 200);
    assert!(page.header("content-type").is_some_and(|t| t.starts_with("text/html")));
    assert!(page.body.contains("swagger-ui"), "{}", page.body);
    let initializer = app.request("GET", "/swagger-ui/swagger-initializer.js", &[], None);
    assert!(initializer.body.contains("\"url\": \"/api-docs/openapi.json\""), "{}", initializer.body);
    let bundle = app.request("GET", "/swagger-ui/swagger-ui-bundle.js", &[], None);
    assert_eq!(bundle.status, 200, "the bundle is served from the binary");
    assert!(bundle.body.len() > 100_000);
    for path in ["/docs", "/swagger-ui"] {
        let redirect = app.request("GET", path, &[], None);
        assert_eq!((redirect.status, redirect.header("location")), (307, Some("/swagger-ui/")), "{path}");
    }
}

#[test]
fn the_play_page_is_served_from_the_binary_and_the_root_leads_to_it() {
    let app = TestApp::spawn();
    let root = app.request("GET", "/", &[], None);
    assert_eq!((root.status, root.header("location")), (307, Some("/play")));
    let page = app.request("GET", "/play", &[], None);
    assert_eq!((page.status, page.header("content-type")), (200, Some("text/html; charset=utf-8")));
    // Under the security policy, every script comes from the server: none is inline.
    assert_eq!(page.body.matches("<script").count(), 1, "{}", page.body);
    assert!(page.body.contains(r#"<script src="/play/play.js" defer></script>"#), "{}", page.body);
    let files = [
        ("/play/play.js", "text/javascript; charset=utf-8", include_str!("../../../clients/typescript/play/play.js")),
        ("/play/play.css", "text/css; charset=utf-8", include_str!("../../../clients/typescript/play/play.css")),
    ];
    for (path, content_type, committed) in files {
        let file = app.request("GET", path, &[], None);
        assert_eq!((file.status, file.header("content-type")), (200, Some(content_type)), "{path}");
        assert_eq!(file.header("cache-control"), Some("no-cache"), "{path}");
        assert!(file.body == committed, "{path} is not the committed file");
    }
    let elsewhere = app.request("GET", "/play/other.js", &[], None);
    assert_eq!(elsewhere.status, 404);
}

#[test]
fn every_answer_carries_the_security_headers() {
    let app = TestApp::spawn();
    for path in
        ["/swagger-ui/", "/swagger-ui/swagger-ui-bundle.js", "/play", "/api/v1/games", "/api/v1/games/9", "/nowhere"]
    {
        let answer = app.request("GET", path, &[], None);
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{path}");
        let policy = answer.header("content-security-policy").unwrap_or_default();
        assert!(policy.starts_with("default-src 'none'; script-src 'self';"), "{path}: {policy}");
        assert!(policy.contains("frame-ancestors 'none'"), "{path}: {policy}");
    }
}

/// Swagger UI in a real browser, with the page's security policy in force: it
/// lists the operations, so its scripts ran and fetched the document.
#[test]
#[ignore = "needs Chromium (QTTT_TEST_CHROMIUM, default chromium): .ci/run installs it"]
fn swagger_ui_renders_in_a_browser_under_its_security_policy() {
    let app = TestApp::spawn();
    let chromium = std::env::var("QTTT_TEST_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let profile = tempfile::tempdir().unwrap();
    let rendered = std::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--virtual-time-budget=15000", "--dump-dom"])
        .arg(format!("http://{}/swagger-ui/", app.address))
        .output()
        .expect("chromium runs");
    let (dom, log) = (String::from_utf8_lossy(&rendered.stdout), String::from_utf8_lossy(&rendered.stderr));
    assert!(rendered.status.success(), "{log}");
    for path in ["/api/v1/games", "/api/v1/games/{id}/events", "/healthz"] {
        assert!(dom.contains(&format!("data-path=\"{path}\"")), "{path} is not listed:\n{dom}");
    }
    assert!(!log.contains("Content Security Policy"), "the policy refused something:\n{log}");
}
