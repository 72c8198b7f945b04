//! Lines for the operator on stdout: the addresses, a generated token, what a
//! slow start is doing. A leaf: every module may use it, it uses none.

use std::io::Write;

/// Writes a line for the operator on stdout. `println!` would panic, and stop
/// the service, when nobody reads stdout any more (a pipe whose reader
/// exited); a service keeps serving, and says so in its log.
pub fn tell_operator(line: std::fmt::Arguments) {
    if write_line(line).is_err() {
        tracing::warn!("stdout is closed: a line for the operator was not shown there");
    }
}

/// One line on stdout, flushed; a closed stdout is an error for the caller to
/// decide on (the service goes on, a one-shot command may not), not a panic
/// as with `println!`.
pub fn write_line(text: std::fmt::Arguments) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(text).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush())
}
