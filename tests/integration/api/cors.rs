//! Browsers on other origins: any by default, or only the configured ones.

use qttt::config::CorsOrigins;

use super::helpers::TestApp;

#[test]
fn any_origin_may_call_by_default_and_read_the_etag_and_location() {
    let app = TestApp::spawn();
    let answer = app.request("POST", "/api/v1/games", &[("Origin", "http://localhost:3000")], None);
    assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
    let exposed = answer.header("access-control-expose-headers").unwrap_or_default().to_lowercase();
    assert!(exposed.contains("etag") && exposed.contains("location"), "{exposed}");
    assert_eq!(answer.header("access-control-allow-credentials"), None);
    let preflight = app.request(
        "OPTIONS",
        "/api/v1/games/1/moves",
        &[
            ("Origin", "http://localhost:3000"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization, content-type, if-match"),
        ],
        None,
    );
    assert_eq!(preflight.status, 200);
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
}

#[test]
fn a_configured_list_lets_in_only_its_origins_and_refuses_others_as_problems() {
    let app = TestApp::spawn_with_origins(CorsOrigins::List(vec!["https://play.example".into()]));
    let allowed = app.request("GET", "/healthz", &[("Origin", "https://play.example")], None);
    assert_eq!(allowed.header("access-control-allow-origin"), Some("https://play.example"));
    let preflight = app.request(
        "OPTIONS",
        "/api/v1/games",
        &[("Origin", "https://elsewhere.example"), ("Access-Control-Request-Method", "POST")],
        None,
    );
    let problem = preflight.assert_problem(400, "rejected");
    assert_eq!(problem["detail"], "Origin is not allowed to make this request");
    assert_eq!(preflight.header("access-control-allow-origin"), None);
}
