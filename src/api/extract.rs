//! Extractors that turn a request into checked input, or into a problem+json error.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, ETag, EntityTag, Header, HeaderMap, IfMatch, IfNoneMatch};
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Number;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, SchemaFormat};
use utoipa::openapi::{ObjectBuilder, Required, Type};

use super::limit::{ClientAddress, Limits};
use super::problem::ApiError;
use crate::record::{GameId, Holder};
use crate::service::{Credentials, GameService};

/// The largest request body accepted; the API's bodies are a few dozen bytes.
pub const BODY_LIMIT: usize = 4 * 1024;

/// How much of a body over [`BODY_LIMIT`] is read and dropped before the 413
/// is sent, as nginx's `lingering_close` does: a client that sends its whole
/// body before it reads the answer gets the 413, not a connection reset by a
/// close with its bytes unread. A longer body is answered at once.
const MOST_DROPPED: u64 = 8 * 1024 * 1024;

/// How long a request's body may take to arrive, from when its head did; the
/// slowest client's connection is closed then, not held.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyTimeout(pub std::time::Duration);

/// A JSON request body. No body at all, or `null`, reads as `{}`, so that
/// operations whose fields all have defaults need no body.
#[derive(Debug)]
pub(crate) struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let is_json = is_json(request.headers());
        let timeout = request.app_data::<BodyTimeout>().copied().expect("the app sets the body timeout").0;
        let length = request.headers().get(header::CONTENT_LENGTH).and_then(|value| value.to_str().ok()?.parse().ok());
        let mut read = Box::pin(read_body(payload.take(), length));
        Box::pin(async move {
            // A body that came with its head is read at once, with no timer
            // set and cancelled for it: the most of a request's own cost here.
            let bytes = match poll_fn(|context| Poll::Ready(read.as_mut().poll(context))).await {
                Poll::Ready(body) => body,
                Poll::Pending => tokio::time::timeout(timeout, read).await.map_err(|_| {
                    invalid_body(
                        StatusCode::REQUEST_TIMEOUT,
                        format!("the body did not arrive within {} s", timeout.as_secs_f64()),
                    )
                })?,
            }?;
            if !bytes.is_empty() && !is_json {
                return Err(invalid_body(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "send the body as JSON, with Content-Type: application/json".into(),
                ));
            }
            // No body, or `null`, means no fields: `{}`.
            let body: &[u8] = if bytes.is_empty() || bytes.trim_ascii() == b"null" { b"{}" } else { &bytes };
            // Every body the API takes is an object; serde would also read a struct
            // from an array of its fields, which no client means.
            if !body.trim_ascii_start().starts_with(b"{") {
                return Err(invalid_body(StatusCode::BAD_REQUEST, "the body must be a JSON object".into()));
            }
            serde_json::from_slice(body)
                .map(JsonBody)
                .map_err(|error| invalid_body(StatusCode::BAD_REQUEST, format!("the body is not valid: {error}")))
        })
    }
}

/// The body of `payload`, `length` bytes long as its head says (when it
/// does), at most [`BODY_LIMIT`]. A longer one is read to its end and dropped,
/// up to [`MOST_DROPPED`] bytes, before it is refused.
///
/// # Errors
/// 413 for a body over the limit; 400 for one that could not be read.
async fn read_body(mut payload: Payload, length: Option<u64>) -> Result<web::Bytes, ApiError> {
    use futures_util::StreamExt;
    let too_large =
        || invalid_body(StatusCode::PAYLOAD_TOO_LARGE, format!("the body is larger than {BODY_LIMIT} bytes"));
    if length.is_some_and(|length| length > MOST_DROPPED) {
        return Err(too_large());
    }
    let (mut body, mut dropped) = (web::BytesMut::new(), 0);
    while let Some(chunk) = payload.next().await {
        let chunk = chunk
            .map_err(|error| invalid_body(StatusCode::BAD_REQUEST, format!("the body could not be read: {error}")))?;
        if dropped > 0 || body.len() + chunk.len() > BODY_LIMIT {
            dropped += chunk.len() as u64;
            if dropped > MOST_DROPPED {
                break;
            }
        } else {
            body.extend_from_slice(&chunk);
        }
    }
    if dropped > 0 { Err(too_large()) } else { Ok(body.freeze()) }
}

/// A whole number from JSON, written `4` or `4.0`: JSON Schema's `integer`
/// admits both, so the API does too.
///
/// # Errors
/// For a number with a fraction, beyond 2^53, or no number at all.
pub(crate) fn whole_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    whole(Number::deserialize(deserializer)?)
}

/// Two whole numbers from JSON, as [`whole_number`] reads each.
///
/// # Errors
/// For anything but an array of two such numbers.
pub(crate) fn two_whole_numbers<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[i64; 2], D::Error> {
    let [a, b] = <[Number; 2]>::deserialize(deserializer)?;
    Ok([whole(a)?, whole(b)?])
}

/// Two whole numbers from JSON, as [`two_whole_numbers`] reads them, or null.
///
/// # Errors
/// For anything but null or an array of two such numbers.
pub(crate) fn optional_two_whole_numbers<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<[i64; 2]>, D::Error> {
    Option::<[Number; 2]>::deserialize(deserializer)?.map(|[a, b]| Ok([whole(a)?, whole(b)?])).transpose()
}

fn whole<E: serde::de::Error>(number: Number) -> Result<i64, E> {
    // Beyond 2^53 a float no longer holds every whole number exactly.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    number
        .as_i64()
        .or_else(|| {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "a whole number within 2^53, which an i64 holds exactly"
            )]
            number.as_f64().filter(|f| f.fract() == 0.0 && f.abs() <= EXACT).map(|f| f as i64)
        })
        .ok_or_else(|| E::custom(format!("expected a whole number, not {number}")))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(|essence| essence.trim().as_bytes())
        .is_some_and(|essence| {
            essence.eq_ignore_ascii_case(b"application/json")
                || essence.len() >= 5 && essence[essence.len() - 5..].eq_ignore_ascii_case(b"+json")
        })
}

fn invalid_body(status: StatusCode, detail: String) -> ApiError {
    ApiError::InvalidBody { status, detail }
}

/// A seat's request on a game: the game's id (the path's `{id}`), the seat's
/// token from `Authorization: Bearer <token>`, and the version `If-Match` asks
/// for. The one place for these: how they are read, and beside that how the
/// OpenAPI document describes them.
#[derive(Debug)]
pub(crate) struct SeatRequest {
    /// The game's id.
    pub id: GameId,
    /// The bearer token of the seat.
    pub token: String,
    /// `Some` when the action must apply only to that version of the game; `None`
    /// without `If-Match` or with `*`.
    pub expected_version: Option<i64>,
}

/// What a well-formed `If-Match` looks like: `*`, or one version tag.
const IF_MATCH_PATTERN: &str = r#"^(\*|(W/)?"[0-9]{1,18}")$"#;

impl FromRequest for SeatRequest {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let read = || {
            let id =
                request.match_info().get("id").and_then(|id| id.parse().ok()).ok_or_else(|| invalid_id(request))?;
            let token = seat_token(request.headers())?.ok_or_else(|| {
                ApiError::Unauthorized("send the seat's token as Authorization: Bearer <token>".into())
            })?;
            admit_authentication(request)?;
            Ok(SeatRequest { id, token, expected_version: expected_version(request)? })
        };
        std::future::ready(read())
    }
}

/// The bearer token of `Authorization`, if the request sends one: a player's,
/// where an operation takes one (creating a game, joining it). The one place
/// where a request presents a token that is not yet known to be anybody's.
#[derive(Debug)]
pub struct Bearer(pub Option<String>);

impl FromRequest for Bearer {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let read = || {
            let token = seat_token(request.headers())?;
            if token.is_some() {
                admit_authentication(request)?;
            }
            Ok(Bearer(token))
        };
        std::future::ready(read())
    }
}

/// A player's request: the player's token from `Authorization: Bearer <token>`.
#[derive(Debug)]
pub(crate) struct PlayerToken(pub String);

impl FromRequest for PlayerToken {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(player_token(request, seat_token(request.headers()), "Authorization: Bearer <token>"))
    }
}

/// The player whose token `bearer` carries, if it carries one.
///
/// # Errors
/// [`ApiError::Unauthorized`] for a token that is no player's.
pub(super) async fn caller(service: &GameService, bearer: Bearer) -> Result<Option<Holder>, ApiError> {
    match bearer.0 {
        None => Ok(None),
        Some(token) => Ok(Some(player(service, &PlayerToken(token)).await?)),
    }
}

/// The player whose token `token` is.
///
/// # Errors
/// A token that is no player's, or no longer, is unauthorized.
pub(super) async fn player(service: &GameService, token: &PlayerToken) -> Result<Holder, ApiError> {
    Ok(service.player(&token.0).await?)
}

/// A player's token for their event stream: from `Authorization: Bearer
/// <token>`, or from `?token=`, since an `EventSource` cannot send a header.
#[derive(Debug)]
pub(crate) struct StreamToken(pub PlayerToken);

/// The query that carries a token; any other parameter is the operation's.
#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

impl FromRequest for StreamToken {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        // An empty `?token=` is no token: the answer says how to send one.
        let token = header_or_query_token(request).map(|token| token.filter(|token| !token.is_empty()));
        let how = "Authorization: Bearer <token>, or as ?token=<token>";
        std::future::ready(player_token(request, token, how).map(StreamToken))
    }
}

/// The player's token of `token`, as `request` brings it, admitted; unauthorized
/// when there is none, with `how` to send one.
fn player_token(
    request: &HttpRequest,
    token: Result<Option<String>, ApiError>,
    how: &str,
) -> Result<PlayerToken, ApiError> {
    let token = token?.ok_or_else(|| ApiError::Unauthorized(format!("send your player's token as {how}")))?;
    admit_authentication(request)?;
    Ok(PlayerToken(token))
}

/// The token of `Authorization: Bearer`, else of `?token=`, if either is there.
fn header_or_query_token(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    match seat_token(request.headers())? {
        Some(token) => Ok(Some(token)),
        None => query_token(request),
    }
}

/// The token of `?token=`, if the query has one, empty or not.
fn query_token(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    Ok(query_of::<TokenQuery>(request)?.token)
}

/// The part of `request`'s query that `T` reads.
fn query_of<T: serde::de::DeserializeOwned>(request: &HttpRequest) -> Result<T, ApiError> {
    web::Query::<T>::from_query(request.query_string()).map(web::Query::into_inner).map_err(invalid_query)
}

/// The refusal of a query that is not what the operation takes.
pub(super) fn invalid_query(error: impl std::fmt::Display) -> ApiError {
    ApiError::InvalidQuery(format!("the query is not valid: {error}"))
}

/// What a reader of a game presents: a seat's token (or its player's) as
/// `Authorization: Bearer <token>` or `?token=`, the game's invite as
/// `?invite=`, or neither. A private game is read only with one of them; an
/// `EventSource` cannot send a header, and takes the query's.
#[derive(Debug)]
pub(crate) struct Reader(pub Credentials);

/// The query that carries an invite; any other parameter is the operation's.
#[derive(Deserialize)]
struct InviteQuery {
    invite: Option<String>,
}

impl FromRequest for Reader {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let read = || {
            let token = header_or_query_token(request)?;
            if token.as_deref() == Some("") {
                return Err(ApiError::InvalidQuery("the token must not be empty: send ?token=<token>, or none".into()));
            }
            let invite = query_of::<InviteQuery>(request)?.invite;
            if invite.as_deref() == Some("") {
                return Err(ApiError::InvalidQuery(
                    "the invite must not be empty: send ?invite=<invite>, or none".into(),
                ));
            }
            let credentials = Credentials::new(token.as_deref(), invite.as_deref());
            if !credentials.is_empty() {
                admit_authentication(request)?;
            }
            Ok(Reader(credentials))
        };
        std::future::ready(read())
    }
}

impl utoipa::IntoParams for Reader {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            ParameterBuilder::new()
                .name("token")
                .parameter_in(ParameterIn::Query)
                .description(Some(
                    "A seat's token, or its player's, as Authorization would send it, for an EventSource, which \
                     cannot: the stream then keeps the seat present and tells of the other player going and \
                     coming back.",
                ))
                .required(Required::False)
                .schema(Some(ObjectBuilder::new().schema_type(Type::String).min_length(Some(1))))
                .build(),
            ParameterBuilder::new()
                .name("invite")
                .parameter_in(ParameterIn::Query)
                .description(Some(
                    "A private game's invite, which reads it as a seat's token does (an EventSource cannot send \
                     Authorization); a public game needs neither.",
                ))
                .required(Required::False)
                .schema(Some(ObjectBuilder::new().schema_type(Type::String).min_length(Some(1))))
                .build(),
        ]
    }
}

/// Refuses a request that presents a token or an invite from an address that
/// failed too many authentications lately.
pub(crate) fn admit_authentication(request: &HttpRequest) -> Result<(), ApiError> {
    let limits = request.app_data::<web::Data<Limits>>().expect("the app has its limits");
    limits.admit_authentication(ClientAddress::of(request))
}

/// The answer to an id in the path (a game's, a challenge's, a seek's) that is
/// no whole number.
pub(crate) fn invalid_id(request: &HttpRequest) -> ApiError {
    ApiError::InvalidPath(format!("the id in {} must be a whole number, as in /api/v1/games/42", request.path()))
}

/// The seat token of `Authorization: Bearer <token>`, if the header is there.
fn seat_token(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get(header::AUTHORIZATION).map(|value| value.to_str()) {
        None => Ok(None),
        Some(Err(_)) => Err(ApiError::Unauthorized("the Authorization header is not readable text".into())),
        Some(Ok(value)) => match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => {
                Ok(Some(token.trim().to_string()))
            }
            _ => Err(ApiError::Unauthorized("the Authorization header must read Bearer <token>".into())),
        },
    }
}

/// The version `If-Match` names, read by actix's typed header: none without one
/// or with `*`; a version tag, strong or weak, names its version.
fn expected_version(request: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(value) = request.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let refused = || {
        let value = value.to_str().unwrap_or("").trim();
        ApiError::InvalidHeader(format!("If-Match must be a version tag such as \"7\", not {value:?}"))
    };
    match IfMatch::parse(request).map_err(|_| refused())? {
        IfMatch::Any => Ok(None),
        IfMatch::Items(tags) => match tags.as_slice() {
            [tag] => tag.tag().parse().map(Some).map_err(|_| refused()),
            _ => Err(refused()),
        },
    }
}

impl utoipa::IntoParams for SeatRequest {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let id =
            ObjectBuilder::new().schema_type(Type::Integer).format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)));
        let if_match = ObjectBuilder::new().schema_type(Type::String).pattern(Some(IF_MATCH_PATTERN));
        vec![
            ParameterBuilder::new()
                .name("id")
                .parameter_in(ParameterIn::Path)
                .description(Some("The game's id."))
                .required(Required::True)
                .schema(Some(id))
                .build(),
            ParameterBuilder::new()
                .name("If-Match")
                .parameter_in(ParameterIn::Header)
                .description(Some("Apply only if the game is still at this version (an ETag); otherwise 409."))
                .required(Required::False)
                .schema(Some(if_match))
                .build(),
        ]
    }
}

/// The `ETag` of a game's version: a strong tag, the version itself.
pub fn etag(version: i64) -> ETag {
    ETag(EntityTag::new_strong(version.to_string()))
}

/// True when `If-None-Match` already names `version`, by the weak comparison
/// RFC 9110 gives it: the client's copy is current.
pub(crate) fn is_unchanged(request: &HttpRequest, version: i64) -> bool {
    let ETag(current) = etag(version);
    match IfNoneMatch::parse(request) {
        Ok(IfNoneMatch::Any) => true,
        Ok(IfNoneMatch::Items(tags)) => tags.iter().any(|tag| tag.weak_eq(&current)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    #[test]
    fn json_is_any_json_media_type_in_any_case_with_any_parameters() {
        let is_json_type = |content_type: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(content_type).unwrap());
            is_json(&headers)
        };
        for json in
            ["application/json", "Application/JSON", " application/json ; charset=utf-8", "application/vnd.qttt+JSON"]
        {
            assert!(is_json_type(json), "{json}");
        }
        for other in ["text/plain", "application/jsonp", "application/json-seq", "json", "text/json5"] {
            assert!(!is_json_type(other), "{other}");
        }
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn if_match_takes_a_strong_or_weak_version_tag_or_a_star() {
        use actix_web::test::TestRequest;
        let expected = |if_match: &str| {
            let request = TestRequest::default().insert_header((header::IF_MATCH, if_match)).to_http_request();
            expected_version(&request).map_err(|error| error.code())
        };
        assert_eq!(expected_version(&TestRequest::default().to_http_request()).map_err(|error| error.code()), Ok(None));
        assert_eq!(expected(" \"7\" "), Ok(Some(7)));
        assert_eq!(expected("W/\"12\""), Ok(Some(12)));
        assert_eq!(expected("*"), Ok(None));
        for malformed in ["7", "\"seven\"", "\"7", "\"1\", \"2\"", "W/7", "\"99999999999999999999\""] {
            assert_eq!(expected(malformed), Err("invalid_header"), "{malformed}");
        }
    }

    #[test]
    fn if_none_match_names_the_version_by_the_weak_comparison_or_any_with_a_star() {
        use actix_web::test::TestRequest;
        let unchanged = |if_none_match: Option<&str>| {
            let request = match if_none_match {
                Some(value) => TestRequest::default().insert_header((header::IF_NONE_MATCH, value)),
                None => TestRequest::default(),
            };
            is_unchanged(&request.to_http_request(), 7)
        };
        for current in ["\"7\"", "W/\"7\"", "\"3\", \"7\"", "*"] {
            assert!(unchanged(Some(current)), "{current}");
        }
        for other in [None, Some("\"8\""), Some("7"), Some("\"77\"")] {
            assert!(!unchanged(other), "{other:?}");
        }
    }
}
