//! The Envia simulator as a process, for benchmarks and manual tries:
//! `envia-sim [--listen ADDR] [--rate-latency-ms N] [--generate-latency-ms N] [--balance COP]`.
//! Prints `envia-sim listening on <url>`; the API key is `sim-envia-key`.

use std::time::Duration;

use crm_tests::envia_sim::EnviaSim;

#[tokio::main]
async fn main() {
    let mut listen = "127.0.0.1:0".to_string();
    let (mut rate_ms, mut generate_ms, mut balance) = (0u64, 0u64, 1e12f64);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--listen" => listen = value,
            "--rate-latency-ms" => rate_ms = value.parse().expect("milliseconds"),
            "--generate-latency-ms" => generate_ms = value.parse().expect("milliseconds"),
            "--balance" => balance = value.parse().expect("an amount"),
            other => panic!("unknown flag {other}"),
        }
    }
    let sim = EnviaSim::start_on(listen.parse().expect("an address")).await;
    sim.set_latency(Duration::from_millis(rate_ms), Duration::from_millis(generate_ms));
    sim.set_balance(balance);
    println!("envia-sim listening on {}", sim.url);
    tokio::signal::ctrl_c().await.ok();
}
