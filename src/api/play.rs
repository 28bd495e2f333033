//! The play page at `/play`: a lobby, and any game live, to play or to watch.
//! Its source is `clients/typescript/play`, written with the TypeScript client
//! alone; esbuild bundles it into one script, committed and embedded here, so
//! that the server needs no Node to serve it. It runs under the security policy
//! every answer carries: its script and style come from this server, and it
//! calls only the API.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

/// Each file of the page: its path, its type and its text.
const FILES: [(&str, &str, &str); 3] = [
    ("/play", "text/html; charset=utf-8", include_str!("../../clients/typescript/play/index.html")),
    ("/play/play.js", "text/javascript; charset=utf-8", include_str!("../../clients/typescript/play/play.js")),
    ("/play/play.css", "text/css; charset=utf-8", include_str!("../../clients/typescript/play/play.css")),
];

/// Serves the page's files, and sends `/` to it (the API's docs stay at `/docs`).
pub fn routes(config: &mut web::ServiceConfig) {
    for (path, content_type, text) in FILES {
        config.route(
            path,
            web::get().to(move || async move {
                // A new binary may bring a new page: a browser asks each time.
                HttpResponse::Ok()
                    .content_type(content_type)
                    .insert_header((header::CACHE_CONTROL, "no-cache"))
                    .body(text)
            }),
        );
    }
    config.service(web::redirect("/", "/play"));
}
