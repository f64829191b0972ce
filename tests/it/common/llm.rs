//! The loopback OpenAI-compatible server and client helpers for integration tests
//! of every stage that calls models (graph, trees, eval): start a
//! [`LoopbackServer`] with a responder closure and optional fault plan, point a
//! model at [`LoopbackServer::url`], and read its [`Counters`] afterwards.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use moviegraph::llm::{ClientConfig, Config, Llm, LlmOptions, ModelConfig};
use moviegraph::store::Store;

#[allow(unused_imports)]
pub use moviegraph_loopback::{
    echo_responder, fake_vector, fault_mix, request_key, Counters, Fault, FaultPlan, KeyCount,
    LoopbackServer, Reply, Request, Responder, ServerOptions,
};

/// A retry policy with short waits, for tests.
pub fn fast_policy() -> ClientConfig {
    ClientConfig {
        max_retries: 10,
        backoff_base_ms: 5,
        backoff_max_ms: 200,
        deadline_s: 60.0,
        max_repairs: 3,
    }
}

/// The offline configuration plus model `name` on these base URLs.
pub fn config_with(name: &str, urls: &[&str], concurrency: usize, timeout: Duration) -> Config {
    let mut config = Config::offline();
    let mut model = ModelConfig::openai(name, urls);
    model.concurrency = concurrency;
    model.timeout_s = timeout.as_secs_f64();
    config.models.insert(name.to_string(), model);
    config.client = fast_policy();
    config
}

/// A client over `store`.
pub fn client(config: Config, store: Store, options: LlmOptions) -> Llm {
    Llm::new(config, Arc::new(Mutex::new(store)), options).expect("client builds")
}

/// A multi-threaded runtime for driving the async client from a test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}
