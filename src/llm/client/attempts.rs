//! Attempts: each under the model's concurrency limit and per-attempt
//! timeout, transient failures retried with jittered exponential backoff or
//! the server's own delay, within the retry cap and the call's deadline.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::runtime::ModelRuntime;
use super::{Llm, LlmError};
use crate::llm::backend::{AttemptError, FailureKind};
use crate::llm::retry;

impl Llm {
    /// Runs `attempt` until it succeeds, fails fatally, hits the retry cap or would
    /// pass the deadline.
    pub(super) async fn with_retries<T, F, Fut>(
        &self,
        model: &ModelRuntime,
        attempts: &mut u32,
        deadline: Instant,
        attempt: F,
    ) -> Result<T, LlmError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, AttemptError>>,
    {
        let policy = &self.inner.config.client;
        let mut retry = 0u32;
        loop {
            *attempts += 1;
            self.inner.counters.attempts.fetch_add(1, Ordering::Relaxed);
            let remaining = deadline.saturating_duration_since(Instant::now());
            let limit = model.config.timeout().min(remaining);
            let result = {
                let _slot = model.slots.acquire().await.expect("slots never close");
                match tokio::time::timeout(limit, attempt()).await {
                    Ok(r) => r,
                    Err(_) => Err(AttemptError::transient(format!(
                        "no answer within {:.1} s",
                        limit.as_secs_f64()
                    ))),
                }
            };
            let err = match result {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            let failed = |message: String, attempts: u32| LlmError::Failed {
                model: model.name.clone(),
                attempts,
                message,
            };
            if err.kind == FailureKind::Fatal {
                return Err(failed(err.message, *attempts));
            }
            if retry >= policy.max_retries {
                return Err(failed(
                    format!(
                        "gave up after the retry cap ({}); last error: {}",
                        policy.max_retries, err.message
                    ),
                    *attempts,
                ));
            }
            let wait = match err.retry_after {
                Some(d) => retry::honour(d),
                None => retry::backoff(policy, retry),
            };
            if Instant::now() + wait >= deadline {
                return Err(LlmError::Deadline {
                    model: model.name.clone(),
                    attempts: *attempts,
                    deadline_s: policy.deadline_s,
                    message: err.message,
                });
            }
            tracing::debug!(model = %model.name, retry, wait_ms = wait.as_millis() as u64, "retrying: {}", err.message);
            self.inner.counters.retries.fetch_add(1, Ordering::Relaxed);
            self.inner
                .counters
                .waited_ms
                .fetch_add(wait.as_millis() as u64, Ordering::Relaxed);
            tokio::time::sleep(wait).await;
            retry += 1;
        }
    }
}
