//! Accounting: the run's budget (spent, and reserved by calls in flight,
//! against the cap), the client's counters, and the call log in the store.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{ClientStats, Llm, LlmError};
use crate::store::{CacheEntry, CallRecord, RoleTotals, Store};

#[derive(Default)]
pub(super) struct Counters {
    pub(super) calls: AtomicU64,
    pub(super) cache_hits: AtomicU64,
    pub(super) attempts: AtomicU64,
    pub(super) retries: AtomicU64,
    pub(super) repairs: AtomicU64,
    pub(super) failures: AtomicU64,
    pub(super) waited_ms: AtomicU64,
}

#[derive(Default)]
pub(super) struct Budget {
    pub(super) spent: f64,
    pub(super) reserved: f64,
}

impl Llm {
    /// Cost actually spent in this run so far.
    pub fn spent(&self) -> f64 {
        self.inner.budget.lock().expect("budget lock").spent
    }

    /// Counters since this client was made.
    pub fn stats(&self) -> ClientStats {
        let c = &self.inner.counters;
        ClientStats {
            calls: c.calls.load(Ordering::Relaxed),
            cache_hits: c.cache_hits.load(Ordering::Relaxed),
            attempts: c.attempts.load(Ordering::Relaxed),
            retries: c.retries.load(Ordering::Relaxed),
            repairs: c.repairs.load(Ordering::Relaxed),
            failures: c.failures.load(Ordering::Relaxed),
            waited_ms: c.waited_ms.load(Ordering::Relaxed),
        }
    }

    /// Per (role, model) totals of this run, from the store.
    pub fn totals(&self) -> Result<Vec<RoleTotals>, LlmError> {
        Ok(self.lock_store().llm_run_totals(self.inner.run)?)
    }

    pub(super) fn lock_store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while holding the lock leaves the connection usable: every write is
        // one transaction, rolled back if it did not commit.
        self.inner.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn reserve(&self, need: f64) -> Result<(), LlmError> {
        let Some(cap) = self.inner.max_cost else {
            return Ok(());
        };
        let mut b = self.inner.budget.lock().expect("budget lock");
        if b.spent + b.reserved + need > cap {
            return Err(LlmError::Budget {
                spent: b.spent,
                reserved: b.reserved,
                cap,
                need,
            });
        }
        b.reserved += need;
        Ok(())
    }

    pub(super) fn settle(&self, reserved: f64, cost: f64) {
        let mut b = self.inner.budget.lock().expect("budget lock");
        if self.inner.max_cost.is_some() {
            b.reserved = (b.reserved - reserved).max(0.0);
        }
        b.spent += cost;
    }

    pub(super) fn record(
        &self,
        call: &CallRecord,
        cache: Option<&CacheEntry<'_>>,
    ) -> Result<(), LlmError> {
        self.inner.counters.calls.fetch_add(1, Ordering::Relaxed);
        if call.cache_hit {
            self.inner
                .counters
                .cache_hits
                .fetch_add(1, Ordering::Relaxed);
        }
        if call.error.is_some() {
            self.inner.counters.failures.fetch_add(1, Ordering::Relaxed);
        }
        self.lock_store().llm_record(call, cache)?;
        Ok(())
    }
}
