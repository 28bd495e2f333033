//! The server's log: a line per record, readable text or (`LOG_FORMAT=json`) a
//! JSON object for machines, filtered by `RUST_LOG` (default `info`), each line
//! about a request with that request's id; with the client faults the HTTP layer
//! reports as errors told at debug level.

use std::future::Future;
use std::io::Write;
use std::sync::Arc;

use env_logger::fmt::Formatter;
use log::kv::{Key, Value, VisitSource};
use log::{Level, Log, Metadata, Record};
use serde_json::{Map, Value as Json};

/// Where actix's HTTP/1 connections report what went wrong on them.
const CONNECTION_TARGET: &str = "actix_http::h1::dispatcher";

/// Where actix reports a request body too large to decode.
const DECODER_TARGET: &str = "actix_http::h1::decoder";

/// How the log's lines are written: `LOG_FORMAT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// `[time level target request] message`, for people (the default).
    #[default]
    Text,
    /// One JSON object per line: `time`, `level`, `target`, `message`,
    /// `request_id`, and the fields of the record (a request's `method`, `route`,
    /// `status`, `duration_ms`, `client`), for log collectors.
    Json,
}

tokio::task_local! {
    /// The id of the request whose work is being done, for every log line about it.
    static REQUEST_ID: Arc<str>;
}

/// Runs `work` as the work of request `id`: the log lines it writes carry the id,
/// and [`request_id`] answers it.
pub(crate) async fn about_request<T>(id: Arc<str>, work: impl Future<Output = T>) -> T {
    REQUEST_ID.scope(id, work).await
}

/// The id of the request whose work is being done here, if any.
pub fn request_id() -> Option<Arc<str>> {
    REQUEST_ID.try_with(Arc::clone).ok()
}

/// Starts the log for the server, its lines in `format`.
pub fn init(format: LogFormat) {
    let mut builder = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"));
    match format {
        LogFormat::Text => builder.format(text_line),
        LogFormat::Json => builder.format(json_line),
    };
    let logger = builder.build();
    log::set_max_level(logger.filter());
    log::set_boxed_logger(Box::new(ClientFaultsAtDebug(logger))).expect("the log is started once");
}

fn text_line(buf: &mut Formatter, record: &Record) -> std::io::Result<()> {
    let style = buf.default_level_style(record.level());
    write!(buf, "[{} {style}{:<5}{style:#} {}", buf.timestamp(), record.level(), record.target())?;
    if let Some(id) = request_id() {
        write!(buf, " {id}")?;
    }
    writeln!(buf, "] {}", record.args())
}

fn json_line(buf: &mut Formatter, record: &Record) -> std::io::Result<()> {
    let mut line = Map::new();
    line.insert("time".into(), buf.timestamp_millis().to_string().into());
    line.insert("level".into(), record.level().as_str().into());
    line.insert("target".into(), record.target().into());
    line.insert("message".into(), record.args().to_string().into());
    if let Some(id) = request_id() {
        line.insert("request_id".into(), id.as_ref().into());
    }
    // A record's fields cannot fail to be visited into a map.
    let _ = record.key_values().visit(&mut Fields(&mut line));
    writeln!(buf, "{}", Json::Object(line))
}

/// Puts a record's fields into a JSON object: numbers as numbers, the rest as text.
struct Fields<'a>(&'a mut Map<String, Json>);

impl<'kvs> VisitSource<'kvs> for Fields<'_> {
    fn visit_pair(&mut self, key: Key<'kvs>, value: Value<'kvs>) -> Result<(), log::kv::Error> {
        let json = if let Some(number) = value.to_u64() {
            number.into()
        } else if let Some(number) = value.to_f64() {
            number.into()
        } else {
            value.to_string().into()
        };
        self.0.insert(key.as_str().to_string(), json);
        Ok(())
    }
}

/// A request that cannot be parsed, or a connection its client broke, is that
/// client's doing, and anyone can cause them by the thousand: at error level,
/// where actix reports them, they would fill the log. Its lines about them are
/// told again here at debug level.
struct ClientFaultsAtDebug(env_logger::Logger);

impl Log for ClientFaultsAtDebug {
    fn enabled(&self, metadata: &Metadata) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &Record) {
        if is_client_fault(record) {
            let relevelled = Record::builder()
                .args(*record.args())
                .level(Level::Debug)
                .target(record.target())
                .module_path(record.module_path())
                .file(record.file())
                .line(record.line())
                .build();
            if self.0.enabled(relevelled.metadata()) {
                self.0.log(&relevelled);
            }
        } else {
            self.0.log(record);
        }
    }

    fn flush(&self) {
        self.0.flush();
    }
}

fn is_client_fault(record: &Record) -> bool {
    record.level() == Level::Error
        && match record.target() {
            CONNECTION_TARGET => record.args().to_string().starts_with("stream error: "),
            target => target == DECODER_TARGET,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(target: &'a str, args: std::fmt::Arguments<'a>) -> Record<'a> {
        Record::builder().target(target).level(Level::Error).args(args).build()
    }

    #[test]
    fn only_what_a_client_did_to_its_connection_is_told_at_debug_level() {
        let parse = format_args!("stream error: request parse error: invalid Header provided");
        assert!(is_client_fault(&record(CONNECTION_TARGET, parse)));
        let too_large = format_args!("MAX_BUFFER_SIZE unprocessed data reached, closing");
        assert!(is_client_fault(&record(DECODER_TARGET, too_large)));
        let write = format_args!("write zero; closing");
        assert!(!is_client_fault(&record(CONNECTION_TARGET, write)));
        let elsewhere = format_args!("stream error: request parse error: invalid Header provided");
        assert!(!is_client_fault(&record("qttt::api", elsewhere)));
    }

    #[test]
    fn a_record_s_fields_become_json_numbers_and_text() {
        let fields: [(&str, Value); 3] =
            [("status", Value::from(404u16)), ("duration_ms", Value::from(1.5)), ("route", Value::from("/x/{id}"))];
        let record = Record::builder().key_values(&fields).args(format_args!("m")).build();
        let mut line = Map::new();
        record.key_values().visit(&mut Fields(&mut line)).unwrap();
        assert_eq!(Json::Object(line), serde_json::json!({"status": 404, "duration_ms": 1.5, "route": "/x/{id}"}));
    }

    #[tokio::test]
    async fn the_work_of_a_request_knows_its_id_and_nothing_else_does() {
        assert_eq!(request_id(), None);
        let id = about_request("abc-123".into(), async { request_id() }).await;
        assert_eq!(id.as_deref(), Some("abc-123"));
        assert_eq!(request_id(), None);
    }
}
