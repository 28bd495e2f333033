//! The HTTP API: routes, handlers, views and the OpenAPI document.

mod arena_events;
mod arenas;
mod docs;
mod events;
mod extract;
mod feed;
mod games;
mod head;
mod health;
mod life;
mod limit;
mod observe;
mod original_app;
mod pairing;
mod play;
mod player_events;
mod players;
pub mod problem;
mod puzzles;
pub mod views;

use actix_cors::Cors;
use actix_web::body::MessageBody;
use actix_web::dev::{ResourceDef, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::{DefaultHeaders, ErrorHandlerResponse, ErrorHandlers, from_fn};
use actix_web::{App, HttpMessage, HttpRequest, HttpResponse, ResponseError, web};
use metrics_exporter_prometheus::PrometheusHandle;
use utoipa::OpenApi;
use utoipa::openapi::OpenApi as OpenApiDocument;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use std::time::Duration;

use crate::config::{Config, CorsOrigins};
use crate::metrics::{MetricsAt, recorder};
use crate::service::GameService;
use problem::ApiError;

pub use extract::BODY_LIMIT;
use extract::BodyTimeout;
pub use head::CappedHead;
pub use limit::Limits;

/// Where the OpenAPI document is served.
pub(crate) const OPENAPI_PATH: &str = "/api-docs/openapi.json";

/// The OpenAPI document of the API, as served at [`OPENAPI_PATH`] by default.
pub fn openapi() -> OpenApiDocument {
    documented(App::new(), true).1
}

/// Registers every documented operation on `app`, the original app's routes
/// with `original_app_routes`, and collects their document.
fn documented<T>(app: App<T>, original_app_routes: bool) -> (App<T>, OpenApiDocument)
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = actix_web::Error, InitError = ()>,
{
    let (app, mut document) = app
        .into_utoipa_app()
        .openapi(docs::ApiDoc::openapi())
        .service(
            utoipa_actix_web::scope("/api/v1")
                .configure(games::routes)
                .configure(life::routes)
                .configure(events::routes)
                .configure(player_events::routes)
                .configure(players::routes)
                .configure(pairing::routes)
                .configure(arenas::routes)
                .configure(arena_events::routes)
                .configure(puzzles::routes),
        )
        .configure(health::routes)
        .configure(|config| {
            if original_app_routes {
                original_app::routes(config);
            }
        })
        .split_for_parts();
    docs::link_seat_tokens(&mut document);
    docs::link_attempts(&mut document);
    (app, document)
}

/// How the API serves, the same for every worker.
#[derive(Debug, Clone)]
pub struct ApiOptions {
    /// The browser origins allowed to call it.
    pub cors_origins: CorsOrigins,
    /// How long a request's body may take to arrive.
    pub body_timeout: Duration,
    /// What each client may take, counted across all workers.
    pub limits: web::Data<Limits>,
    /// What the live streams of each game share, across all workers.
    pub feeds: web::Data<feed::Feeds>,
    /// What the live streams of each arena share, across all workers.
    pub arena_looks: web::Data<arena_events::ArenaLooks>,
    /// Whether the original app's routes are served.
    pub original_app_routes: bool,
    /// The recorder whose metrics `/metrics` serves, when served on the API's port.
    pub metrics: Option<web::Data<PrometheusHandle>>,
}

impl ApiOptions {
    /// The API as `config` sets it up, with counts of its own.
    pub fn of(config: &Config) -> ApiOptions {
        ApiOptions {
            cors_origins: config.cors_allowed_origins.clone(),
            body_timeout: config.request_body_timeout,
            limits: web::Data::new(Limits::new(
                config.create_rate_limit,
                config.failed_auth_rate_limit,
                config.max_live_streams,
                config.max_live_streams_per_address,
                config.trusted_proxies.clone(),
            )),
            feeds: web::Data::default(),
            arena_looks: web::Data::default(),
            original_app_routes: config.original_app_routes,
            metrics: (config.metrics == MetricsAt::ServerPort).then(|| web::Data::new(recorder())),
        }
    }
}

/// The whole application: the API over `service`, the docs, CORS and the
/// problem+json answers for everything that matches no operation.
pub fn app(
    service: GameService,
    options: ApiOptions,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let (app, document) = documented(
        App::new()
            .app_data(web::Data::new(service))
            .app_data(web::PayloadConfig::new(BODY_LIMIT))
            .app_data(BodyTimeout(options.body_timeout))
            .app_data(options.limits)
            .app_data(options.feeds)
            .app_data(options.arena_looks)
            .app_data(web::PathConfig::default().error_handler(|_, request| extract::invalid_id(request).into()))
            .app_data(web::QueryConfig::default().error_handler(|error, _| extract::invalid_query(error).into())),
        options.original_app_routes,
    );
    let known_routes = web::Data::new(KnownRoutes::of(&document));
    let app = match options.metrics {
        Some(recorder) => app.app_data(recorder).route("/metrics", web::get().to(observe::metrics)),
        None => app,
    };
    app.app_data(known_routes)
        .service(SwaggerUi::new("/swagger-ui/{_:.*}").url(OPENAPI_PATH, document))
        .service(web::redirect("/swagger-ui", "/swagger-ui/"))
        .service(web::redirect("/docs", "/swagger-ui/"))
        .configure(play::routes)
        .default_service(web::to(unmatched))
        .wrap(cors(&options.cors_origins))
        .wrap(ErrorHandlers::new().default_handler(as_problem))
        .wrap(security_headers())
        .wrap(from_fn(observe::observe))
}

/// `/metrics` alone, served from `recorder` on an address of its own (`METRICS_ADDR`).
pub(crate) fn metrics_app(
    recorder: web::Data<PrometheusHandle>,
) -> App<
    impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse, Error = actix_web::Error, InitError = ()>,
> {
    App::new().app_data(recorder).route("/metrics", web::get().to(observe::metrics))
}

/// The headers that keep a browser from misreading an answer: none is sniffed
/// into another type, and none is framed by another site. The policy is that of
/// the two pages, Swagger UI and the play page, which load their scripts and
/// styles from the server itself (they work offline) and call only the API; an
/// API answer is no page, and the policy costs it nothing.
fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new().add((header::X_CONTENT_TYPE_OPTIONS, "nosniff")).add((header::X_FRAME_OPTIONS, "DENY")).add((
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
             font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ))
}

/// Turns an error answer that is not JSON, such as the CORS layer's plain-text
/// refusal of an origin, into problem+json: clients never see another kind. (The
/// original app's routes answer their errors in their own JSON shape.)
fn as_problem<B: MessageBody + 'static>(answer: ServiceResponse<B>) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let is_json =
        answer.headers().get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).is_some_and(|value| {
            value.starts_with("application/problem+json") || value.starts_with("application/json")
        });
    if is_json {
        return Ok(ErrorHandlerResponse::Response(answer.map_into_left_body()));
    }
    let (request, response) = answer.into_parts();
    let status = response.status();
    Ok(ErrorHandlerResponse::Future(Box::pin(async move {
        let said = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_default();
        let detail = match String::from_utf8_lossy(&said).trim() {
            "" => "the request was refused before it reached the API".to_string(),
            text => text.to_string(),
        };
        let problem = ApiError::Rejected { status, detail }.error_response();
        Ok(ServiceResponse::new(request, problem).map_into_right_body())
    })))
}

fn cors(origins: &CorsOrigins) -> Cors {
    let cors = Cors::default()
        .allow_any_method()
        .allow_any_header()
        // Every header a client reads: a game's version, a new game's path, how
        // long to wait after a 429 or a 503, and the id to quote in a report.
        .expose_headers([header::ETAG, header::LOCATION, header::RETRY_AFTER, observe::REQUEST_ID])
        .max_age(3600);
    match origins {
        CorsOrigins::Any => cors.allow_any_origin().send_wildcard(),
        CorsOrigins::List(list) => list.iter().fold(cors, |cors, origin| cors.allowed_origin(origin)),
    }
}

/// The documented paths and their methods, to tell a wrong method (405) from a
/// wrong path (404).
struct KnownRoutes(Vec<(ResourceDef, Vec<String>)>);

impl KnownRoutes {
    fn of(document: &OpenApiDocument) -> KnownRoutes {
        KnownRoutes(
            document
                .paths
                .paths
                .iter()
                .map(|(path, item)| {
                    let methods =
                        [("GET", &item.get), ("POST", &item.post), ("PUT", &item.put), ("DELETE", &item.delete)]
                            .into_iter()
                            .filter(|(_, operation)| operation.is_some())
                            .map(|(method, _)| method.to_string())
                            .collect();
                    (ResourceDef::new(path.as_str()), methods)
                })
                .collect(),
        )
    }
}

/// Answers every request that no operation took.
async fn unmatched(request: HttpRequest, known_routes: web::Data<KnownRoutes>) -> Result<HttpResponse, ApiError> {
    request.extensions_mut().insert(observe::NoOperation);
    let path = request.path();
    Err(match known_routes.0.iter().find(|(route, _)| route.is_match(path)) {
        Some((_, methods)) => ApiError::MethodNotAllowed { allowed: methods.clone() },
        None => ApiError::NoRoute(format!("there is no route {path}; the API is under /api/v1, its docs at /docs")),
    })
}
