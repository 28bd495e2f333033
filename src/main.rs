//! The `qttt` command: the server, and a few tools around it.

mod cli;

use std::process::ExitCode;

#[actix_web::main]
async fn main() -> ExitCode {
    give_freed_memory_back_at_once();
    let outcome = match cli::command_line() {
        Ok(command) => cli::run(command).await,
        Err(refused) => Err(refused.into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("qttt: {failure}");
            ExitCode::FAILURE
        }
    }
}

/// mimalloc instead of the system allocator: a request allocates and frees many
/// small buffers (its view, its JSON, the rows it reads). In the load profile
/// glibc's allocator took 7% of the server's time; with mimalloc a game request
/// costs about 8% less CPU, for about 18 MiB more resident memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Has mimalloc give memory back to the system as soon as it is free. By
/// default it waits a second, and then for the thread that freed it to allocate
/// 10,000 times more: an idle worker kept the buffers of 2,000 closed
/// connections' heads, 60-90 MB, for 30 s and more.
#[allow(unsafe_code)]
fn give_freed_memory_back_at_once() {
    use std::ffi::{c_int, c_long};
    // `mi_option_purge_delay` in the mimalloc.h (v3) that libmimalloc-sys builds.
    const PURGE_DELAY: c_int = 15;
    unsafe extern "C" {
        fn mi_option_set(option: c_int, value: c_long);
    }
    // SAFETY: mimalloc's own setter of one of its integer options, an atomic
    // store; the library is linked in as the global allocator.
    unsafe { mi_option_set(PURGE_DELAY, 0) }
}
