//! What a one-shot command (`admin`, `import`, `store copy`) writes: its
//! answer on stdout, its progress and failures on stderr.

use std::io::Write;

/// Writes a one-shot command's answer (`admin`, `import`, `store copy`) on
/// stdout. A reader that has gone (`crm-host admin ... | head -1`) took what
/// it wanted after the command's work was done, so that is not a failure,
/// where `println!` would panic and exit 101; a write that fails otherwise
/// (a full disk under `> file`) is.
pub fn print_answer(text: std::fmt::Arguments) -> std::io::Result<()> {
    match crm_server::console::write_line(text) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}

/// A line on stderr (progress, the reason of a failure), dropped when nobody
/// reads stderr any more.
pub fn print_note(text: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr(), "{text}");
}
