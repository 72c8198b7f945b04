//! `crm-stats`: the one statistics routine of the bench scripts
//! (`scripts/bench-lib.sh` wraps each command), so that every script's
//! median, spread and CPU figure is computed the same way.
//!
//! ```text
//! crm-stats median N...          the median (the mean of the middle two when even)
//! crm-stats spread N...          "median (min–max)"
//! crm-stats cpu PID...           CPU time (user and system) the processes used, in µs
//! crm-stats per BEFORE AFTER N   (AFTER - BEFORE) / N, rounded: two `cpu` readings per request
//! crm-stats order ROUND A B...   A B... in round 1, 3, ...; ... B A in round 2, 4, ...
//! ```
//!
//! `order` is the alternation of what a round compares: on a noisy machine
//! the later of two loads in a round meets a warmer cache and a larger
//! store, so each goes first in half the rounds (give an even number).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else { return usage() };
    let numbers = || -> Option<Vec<f64>> { rest.iter().map(|n| n.parse().ok()).collect() };
    let answer = match command.as_str() {
        "median" => numbers().and_then(|n| median(&n)).map(format_number),
        "spread" => numbers().and_then(|n| spread(&n)),
        "cpu" => rest.iter().map(|pid| pid.parse().ok().map(cpu_micros)).sum::<Option<u64>>().map(|t| t.to_string()),
        "order" => rest.split_first().and_then(|(round, items)| order(round.parse().ok()?, items)),
        "per" => match numbers().as_deref() {
            Some(&[before, after, n]) if n > 0.0 => Some(format!("{:.0}", (after - before) / n)),
            _ => None,
        },
        _ => None,
    };
    match answer {
        Some(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        None => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: crm-stats median|spread N... | cpu PID... | per BEFORE AFTER N | order ROUND ITEM...");
    ExitCode::from(2)
}

/// The median; `None` of nothing.
fn median(numbers: &[f64]) -> Option<f64> {
    let mut sorted = numbers.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// "median (min–max)".
fn spread(numbers: &[f64]) -> Option<String> {
    let min = numbers.iter().copied().reduce(f64::min)?;
    let max = numbers.iter().copied().reduce(f64::max)?;
    Some(format!("{} ({}–{})", format_number(median(numbers)?), format_number(min), format_number(max)))
}

/// A number as the scripts print it: no trailing zeros.
fn format_number(n: f64) -> String {
    let text = format!("{n:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `items` in the order round `round` (from 1) runs them: as given in odd
/// rounds, reversed in even ones; `None` of no items or round 0.
fn order(round: u32, items: &[String]) -> Option<String> {
    if items.is_empty() || round == 0 {
        return None;
    }
    let mut items = items.to_vec();
    if round.is_multiple_of(2) {
        items.reverse();
    }
    Some(items.join(" "))
}

/// The CPU time process `pid` has used (user and system), in microseconds;
/// 0 for one that is gone.
fn cpu_micros(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0 };
    // The command name may hold spaces: fields are counted after its `)`.
    let Some(after_name) = stat.rsplit_once(')').map(|(_, rest)| rest) else { return 0 };
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
    // SAFETY: sysconf reads a constant of the system; it has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    ticks * 1_000_000 / hz
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spreads_as_the_scripts_print_them() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(spread(&[1.26, 1.34, 1.19]).unwrap(), "1.26 (1.19–1.34)");
        assert_eq!(format_number(1000.0), "1000");
        assert_eq!(format_number(0.001234), "0.001234", "curl's seconds keep their digits");
        assert_eq!(median(&[1.19, 1.34]).map(format_number).unwrap(), "1.265");
    }

    #[test]
    fn each_item_goes_first_in_half_the_rounds() {
        let items = ["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(order(1, &items).unwrap(), "a b c");
        assert_eq!(order(2, &items).unwrap(), "c b a");
        assert_eq!(order(3, &items).unwrap(), "a b c");
        assert_eq!(order(0, &items), None, "rounds count from 1");
        assert_eq!(order(1, &[]), None);
    }

    #[test]
    fn this_process_has_used_some_cpu() {
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        assert!(x > 0);
        assert!(cpu_micros(std::process::id()) > 0);
    }
}
