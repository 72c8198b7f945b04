//! Bodies a screen long: no function of a crate's `src/` outside tests is
//! longer than [`LONGEST`] lines, so each reads as the list of its steps.

use super::{code_of, rust_files, workspace_crates};

/// The most lines a function may take, from its `fn` to its closing brace.
const LONGEST: usize = 80;

/// Whether a line starts a function item: `fn`, after any of `pub`,
/// `pub(crate)`, `async`, `const`, `unsafe`, `extern "C"`.
fn starts_a_function(line: &str) -> bool {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        for prefix in ["pub(crate) ", "pub(super) ", "pub ", "async ", "const ", "unsafe ", "extern \"C\" "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        if rest == before {
            return rest.starts_with("fn ");
        }
    }
}

/// The braces a line opens less those it closes, outside string and char
/// literals.
fn brace_balance(line: &str) -> i64 {
    let (mut balance, mut in_string, mut escaped) = (0, false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (in_string, c) {
            (true, '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (true, '"') if !escaped => in_string = false,
            (false, '"') => in_string = true,
            (false, '\'') if chars.peek().is_some() => {
                // A char literal ('{', '\n') is skipped; a lifetime is not one.
                let mut ahead = chars.clone();
                let quoted = match ahead.next() {
                    Some('\\') => ahead.nth(1) == Some('\''),
                    Some(_) => ahead.next() == Some('\''),
                    None => false,
                };
                if quoted {
                    chars = ahead;
                }
            }
            (false, '/') if chars.peek() == Some(&'/') => break,
            (false, '{') => balance += 1,
            (false, '}') => balance -= 1,
            _ => {}
        }
        escaped = false;
    }
    balance
}

/// Each function of `code` longer than [`LONGEST`] lines: its first line
/// (from 1) and its length.
fn long_functions(code: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut long = Vec::new();
    let mut at = 0;
    while let Some(line) = lines.get(at) {
        if !starts_a_function(line) {
            at += 1;
            continue;
        }
        let (mut depth, mut opened, mut end) = (0, false, at);
        for (i, body_line) in lines.iter().enumerate().skip(at) {
            depth += brace_balance(body_line);
            opened |= body_line.contains('{');
            end = i;
            if (opened && depth <= 0) || (!opened && body_line.trim_end().ends_with(';')) {
                break;
            }
        }
        if opened && end + 1 - at > LONGEST {
            long.push((at + 1, end + 1 - at));
        }
        at = end + 1;
    }
    long
}

#[test]
fn no_function_outside_tests_is_longer_than_a_screen() {
    let mut long = Vec::new();
    for (name, src) in workspace_crates().into_iter().filter(|(name, _)| name != "crm-tests") {
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            for (line, length) in long_functions(&code) {
                long.push(format!("{name}: {} (the function at code line {line}): {length} lines", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions longer than {LONGEST} lines (split them where their steps are):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_reader_counts_a_body_and_skips_braces_in_literals() {
    let body = |n: usize| (0..n).map(|i| format!("    let x{i} = \"{{\"; let c = '}}';\n")).collect::<String>();
    let short = format!("pub(crate) async fn short() {{\n{}}}\n", body(78));
    let long = format!("fn long<'a>(x: &'a str) {{\n{}}}\nfn after();\n", body(79));
    assert_eq!(long_functions(&short), []);
    assert_eq!(long_functions(&long), [(1, 81)]);
    assert_eq!(long_functions(&format!("{short}{long}")), [(81, 81)]);
}
