//! Probes for operators and orchestrators.

use actix_web::{HttpResponse, get, web};

use super::problem::ApiError;
use super::views::Health;
use crate::service::GameService;

/// Is the process alive? Answers without touching the database.
#[utoipa::path(
    tag = "health",
    responses((status = 200, description = "The process answers.", body = Health,
        example = json!({"status": "ok"})))
)]
#[get("/healthz")]
async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok".into() })
}

/// Is the server ready for games? Answers 200 once the database answers; 503
/// `unavailable` while it does not, and `storage_full` from a write that failed
/// for lack of room until a write succeeds again (reads go on meanwhile).
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "The database answers.", body = Health, example = json!({"status": "ready"})),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/readyz")]
async fn readyz(service: web::Data<GameService>) -> Result<HttpResponse, ApiError> {
    service.ready().await?;
    Ok(HttpResponse::Ok().json(Health { status: "ready".into() }))
}

/// Registers the probes.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(healthz).service(readyz);
}
