//! `crm-stats`: the one statistics routine of the bench scripts
//! (`scripts/bench-lib.sh` wraps each command), so that every script's
//! median, spread and CPU figure is computed the same way.
//!
//! ```text
//! crm-stats median N...          the median (the mean of the middle two when even)
//! crm-stats spread N...          "median (min–max)"
//! crm-stats cpu PID...           CPU time (user and system) the processes used, in µs
//! crm-stats cpu-tree PID...      the same with their children's, live and exited (PostgreSQL's
//!                                backends under its postmaster)
//! crm-stats cpu-threads PID NAME CPU time of process PID's threads named NAME, in µs
//!                                (fjall's `fjall:worker`: flushes and compactions)
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
        "cpu-tree" => {
            rest.iter().map(|pid| pid.parse().ok().map(tree_cpu_micros)).sum::<Option<u64>>().map(|t| t.to_string())
        }
        "cpu-threads" => match rest {
            [pid, name] => pid.parse().ok().map(|pid| thread_cpu_micros(pid, name).to_string()),
            _ => None,
        },
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
    eprintln!(
        "usage: crm-stats median|spread N... | cpu|cpu-tree PID... | cpu-threads PID NAME | per BEFORE AFTER N | order ROUND ITEM..."
    );
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
    stat_fields(pid).map_or(0, |fields| ticks_to_micros(sum_fields(&fields, &[UTIME, STIME])))
}

/// The CPU time of process `pid` and of every process under it: the ones
/// still running, and the ones that exited and were waited for, which the
/// kernel adds to their parent's `cutime` and `cstime`. A backend that
/// PostgreSQL started and reaped during a round is counted this way.
fn tree_cpu_micros(pid: u32) -> u64 {
    let Some(fields) = stat_fields(pid) else { return 0 };
    let own = ticks_to_micros(sum_fields(&fields, &[UTIME, STIME, CUTIME, CSTIME]));
    own + children(pid).into_iter().map(tree_cpu_micros).sum::<u64>()
}

/// The CPU time of process `pid`'s threads named `name` (their `comm`),
/// in microseconds: a background thread's part of a run, whether or not a
/// profile's samples caught it at work.
fn thread_cpu_micros(pid: u32, name: &str) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
    tasks
        .flatten()
        .filter(|task| std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim_end() == name))
        .filter_map(|task| std::fs::read_to_string(task.path().join("stat")).ok())
        .filter_map(|stat| fields_after_name(&stat))
        .map(|fields| ticks_to_micros(sum_fields(&fields, &[UTIME, STIME])))
        .sum()
}

/// Indices of `/proc/PID/stat` fields, counted after the command name's `)`
/// (the name may hold spaces): ppid is the line's 4th field, utime, stime,
/// cutime and cstime its 14th to 17th.
const PPID: usize = 1;
const UTIME: usize = 11;
const STIME: usize = 12;
const CUTIME: usize = 13;
const CSTIME: usize = 14;

fn stat_fields(pid: u32) -> Option<Vec<String>> {
    fields_after_name(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// A `stat` line's fields after its command name.
fn fields_after_name(stat: &str) -> Option<Vec<String>> {
    let (_, after_name) = stat.rsplit_once(')')?;
    Some(after_name.split_whitespace().map(str::to_owned).collect())
}

fn sum_fields(fields: &[String], which: &[usize]) -> u64 {
    which.iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum()
}

fn ticks_to_micros(ticks: u64) -> u64 {
    // SAFETY: sysconf reads a constant of the system; it has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    ticks * 1_000_000 / hz
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&child| stat_fields(child).and_then(|f| f.get(PPID)?.parse::<u32>().ok()) == Some(pid))
        .collect()
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

    #[test]
    fn a_tree_counts_its_children_and_the_ones_that_exited() {
        let me = std::process::id();
        let before = tree_cpu_micros(me);
        let busy = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        assert!(std::process::Command::new("sh").args(["-c", busy]).status().unwrap().success());
        let child_cpu = tree_cpu_micros(me) - before;
        assert!(child_cpu >= 50_000, "a child busy for a while, waited for: {child_cpu} µs");
        assert!(cpu_micros(me) <= tree_cpu_micros(me));
    }

    #[test]
    fn a_named_thread_is_counted_and_no_other() {
        let busy = std::thread::Builder::new()
            .name("stats-busy".into())
            .spawn(|| {
                let started = std::time::Instant::now();
                let mut x = 0u64;
                while started.elapsed() < std::time::Duration::from_millis(300) {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
                thread_cpu_micros(std::process::id(), "stats-busy")
            })
            .unwrap();
        let counted = busy.join().unwrap();
        assert!(counted >= 50_000, "a thread busy for 300 ms: {counted} µs");
        assert_eq!(thread_cpu_micros(std::process::id(), "no-such-thread"), 0);
    }
}
