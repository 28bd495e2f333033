//! The server's log: env_logger's lines, filtered by `RUST_LOG` (default `info`),
//! with the client faults the HTTP layer reports as errors told at debug level.

use log::{Level, Log, Metadata, Record};

/// Where actix's HTTP/1 connections report what went wrong on them.
const CONNECTION_TARGET: &str = "actix_http::h1::dispatcher";

/// Where actix reports a request body too large to decode.
const DECODER_TARGET: &str = "actix_http::h1::decoder";

/// Starts the log for the server.
pub fn init() {
    let logger = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).build();
    log::set_max_level(logger.filter());
    log::set_boxed_logger(Box::new(ClientFaultsAtDebug(logger))).expect("the log is started once");
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
}
