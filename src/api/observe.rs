//! What an operator sees of each request: its id (taken from a sane incoming
//! `X-Request-Id`, else made here) in the answer's header, in its problem's
//! `instance` and in every log line about it; a log line when it is answered; and
//! its count and duration in the metrics, which `GET /metrics` serves. It also
//! counts each refused authentication against its client's limit (limit.rs).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ::metrics::{Counter, Histogram, counter, histogram};
use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};
use metrics_exporter_prometheus::PrometheusHandle;

use super::limit::{self, ClientAddress};
use crate::metrics::{HTTP_REQUEST_SECONDS, HTTP_REQUESTS, render};

/// The header that names a request, both ways.
pub(crate) const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The log's target for the line of each answered request.
const ACCESS_TARGET: &str = "qttt::access";

/// The route of a request that no route took, in the metrics: one series for
/// all of them, whatever paths clients make up.
const UNMATCHED: &str = "unmatched";

/// The longest request id taken from a client.
const MOST_ID_LENGTH: usize = 128;

/// Serves `request` as the work of its id, then names it in the answer, logs
/// it and counts it, and counts it against its client when it was refused for
/// want of a valid token.
///
/// # Errors
/// What the layers inside fail with (actix answers it): counted and logged here.
pub(crate) async fn observe<B: MessageBody>(
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id_of(&request);
    crate::logging::about_request(Arc::clone(&id), async move {
        let client = ClientAddress::of(request.request());
        // The request is not cloned: routing needs it alone.
        let (method, path) = (request.method().clone(), request.path().to_string());
        let answered = |status: StatusCode, route: Option<String>| Answered {
            client,
            method: &method,
            path: &path,
            route: route.unwrap_or_else(|| UNMATCHED.to_string()),
            status: status.as_u16(),
            elapsed: started.elapsed(),
        };
        match next.call(request).await {
            Ok(mut response) => {
                limit::count_if_refused(&response, client);
                let header = HeaderValue::from_str(&id).expect("a request id is a sane token");
                response.headers_mut().insert(REQUEST_ID, header);
                // What no operation took is counted as one route, whatever its path.
                let took = !response.request().extensions().contains::<NoOperation>();
                answered(response.status(), response.request().match_pattern().filter(|_| took)).tell();
                Ok(response)
            }
            Err(error) => {
                answered(error.as_response_error().status_code(), None).tell();
                Err(error)
            }
        }
    })
    .await
}

/// Marks a request that no operation took, answered 404 or 405 by the app's
/// default service, whose path, made up by its client, is no route of the metrics.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoOperation;

/// A request as answered.
struct Answered<'a> {
    client: ClientAddress,
    method: &'a Method,
    path: &'a str,
    route: String,
    status: u16,
    elapsed: Duration,
}

/// A series of requests in the metrics: their method, route and status class.
type Series = (&'static str, String, &'static str);

/// A series' count, and its durations when they are timed.
type Measures = (Counter, Option<Histogram>);

thread_local! {
    /// The count and the durations of each series this worker has served:
    /// registering them anew for each request (what the macros do) costs more
    /// than all the rest of its metrics.
    static SERIES: RefCell<HashMap<Series, Measures>> = RefCell::default();
}

impl Answered<'_> {
    /// Logs the request's line, and counts and times it in the metrics.
    fn tell(self) {
        let Answered { client, method, path, route, status, elapsed } = self;
        let duration_ms = elapsed.as_secs_f64() * 1000.0;
        log::info!(
            target: ACCESS_TARGET,
            client:% = client.0, method:% = method, route = route.as_str(), status, duration_ms;
            "{} \"{method} {path}\" {status} {duration_ms:.3} ms", client.0
        );
        SERIES.with_borrow_mut(|series| {
            let (requests, seconds) = series
                .entry((method_label(method), route, status_class(status)))
                .or_insert_with_key(|(method, route, class)| {
                    let (method, route, class) = (*method, route.clone(), *class);
                    let requests =
                        counter!(HTTP_REQUESTS, "method" => method, "route" => route.clone(), "status" => class);
                    // Only what the API's operations take is timed: how long a
                    // preflight or a refused method takes says nothing, and each
                    // histogram is sixteen series.
                    let timed = matches!(method, "GET" | "POST");
                    (requests, timed.then(|| histogram!(HTTP_REQUEST_SECONDS, "method" => method, "route" => route)))
                });
            requests.increment(1);
            if let Some(seconds) = seconds {
                seconds.record(elapsed);
            }
        });
    }
}

/// A method as the metrics name it: one of the API's own, or a CORS preflight's,
/// or `other`, so that the methods a client makes up add no series.
fn method_label(method: &Method) -> &'static str {
    const KNOWN: [(Method, &str); 3] = [(Method::GET, "GET"), (Method::POST, "POST"), (Method::OPTIONS, "OPTIONS")];
    KNOWN.iter().find(|(known, _)| known == method).map_or("other", |(_, name)| name)
}

/// A status as the metrics count it: its class, `2xx` to `5xx`, so that every
/// error a client can provoke adds no series of its own.
fn status_class(status: u16) -> &'static str {
    match status {
        ..200 => "1xx",
        200..300 => "2xx",
        300..400 => "3xx",
        400..500 => "4xx",
        _ => "5xx",
    }
}

/// The request's own id when its client sent a sane one, else a new one.
fn request_id_of(request: &ServiceRequest) -> Arc<str> {
    let sent = request.headers().get(REQUEST_ID).and_then(|value| value.to_str().ok());
    match sent.filter(|id| is_sane(id)) {
        Some(id) => id.into(),
        None => format!("{:032x}", rand::random::<u128>()).into(),
    }
}

/// A request id fit to be repeated in a header, a log line and a URI reference.
fn is_sane(id: &str) -> bool {
    (1..=MOST_ID_LENGTH).contains(&id.len())
        && id.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"-._~".contains(&byte))
}

/// `GET /metrics`: every metric in the Prometheus text format.
pub async fn metrics(recorder: web::Data<PrometheusHandle>) -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain; version=0.0.4; charset=utf-8").body(render(&recorder))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_short_token_of_plain_characters_is_taken_as_a_request_id() {
        assert!(is_sane("abc-123"));
        assert!(is_sane("4f9c1a2b-e03d-4d6a.8c55_e1f0~b7a9"));
        assert!(is_sane(&"a".repeat(128)));
        assert!(!is_sane(&"a".repeat(129)));
        assert!(!is_sane(""));
        assert!(!is_sane("abc 123"));
        assert!(!is_sane("abc\"}"));
        assert!(!is_sane("ünïcode"));
    }

    #[test]
    fn a_method_the_api_has_no_operation_for_is_counted_as_other() {
        assert_eq!(method_label(&Method::POST), "POST");
        assert_eq!(method_label(&Method::OPTIONS), "OPTIONS");
        assert_eq!(method_label(&Method::DELETE), "other");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
    }

    #[test]
    fn a_status_is_counted_by_its_class() {
        let classes: Vec<_> = [101, 200, 201, 304, 404, 429, 500, 503].into_iter().map(status_class).collect();
        assert_eq!(classes, ["1xx", "2xx", "2xx", "3xx", "4xx", "4xx", "5xx", "5xx"]);
    }
}
