//! The call paths: a chat request and an embedding request through cache,
//! budget, attempts and (for chat) validation with repair, logged either way.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;

use super::cache::chat_key;
use super::repair::{finish, repair_request};
use super::runtime::Exec;
use super::{now_ms, LlmError, ModelHandle};
use crate::llm::types::{ChatRequest, Completion, Usage};
use crate::store::{CacheEntry, CallRecord};

impl ModelHandle {
    /// Answers one chat request through cache, budget, retries and validation.
    pub async fn chat(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let llm = &self.llm;
        let model = &self.model;
        let started = Instant::now();
        let started_ms = now_ms();
        let request = self.prepare(request);
        let key = chat_key(&model.identity, &request);
        let base = CallRecord {
            run: llm.inner.run.0,
            role: self.role.clone(),
            model: model.name.clone(),
            cache_key: key.clone(),
            started_at_ms: started_ms,
            ..CallRecord::default()
        };

        let cached = llm.lock_store().llm_cache_get(&key)?;
        let cached = match (cached, &model.exec) {
            (Some(hit), _) => Some(hit),
            (
                None,
                Exec::Replay {
                    store: Some(other), ..
                },
            ) => other
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .llm_cache_get(&key)?,
            _ => None,
        };
        if let Some(hit) = cached {
            let completion: Completion =
                serde_json::from_str(&hit.response).map_err(|e| LlmError::Failed {
                    model: model.name.clone(),
                    attempts: 0,
                    message: format!("cached answer {key} is unreadable: {e}"),
                })?;
            llm.record(
                &CallRecord {
                    latency_ms: started.elapsed().as_millis() as u64,
                    cache_hit: true,
                    finish_reason: completion.finish_reason.clone(),
                    ..base
                },
                None,
            )?;
            return Ok(Completion {
                cached: true,
                key,
                ..completion
            });
        }
        let backend = match &model.exec {
            Exec::Live(b) => b.clone(),
            Exec::Replay { .. } => {
                let err = LlmError::NotRecorded {
                    model: model.name.clone(),
                    key: key.clone(),
                };
                llm.record(
                    &CallRecord {
                        error: Some(err.to_string()),
                        ..base
                    },
                    None,
                )?;
                return Err(err);
            }
            Exec::Missing(why) => {
                let err = LlmError::Failed {
                    model: model.name.clone(),
                    attempts: 0,
                    message: why.clone(),
                };
                llm.record(
                    &CallRecord {
                        error: Some(err.to_string()),
                        ..base
                    },
                    None,
                )?;
                return Err(err);
            }
        };

        let policy = &llm.inner.config.client;
        let per_try = model.config.cost(
            request.input_bound(),
            u64::from(request.max_tokens.unwrap_or(4096)),
        );
        let reserved = per_try
            * f64::from(
                1 + if request.schema.is_some() {
                    policy.max_repairs
                } else {
                    0
                },
            );
        llm.reserve(reserved)?;

        let deadline = started + Duration::from_secs_f64(policy.deadline_s);
        let mut attempts = 0u32;
        let mut repairs = 0u32;
        let mut usage = Usage::default();
        let mut current = request.clone();
        let outcome: Result<Completion, (LlmError, Option<String>)> = loop {
            let resp = match llm
                .with_retries(model, &mut attempts, deadline, || backend.chat(&current))
                .await
            {
                Ok(r) => r,
                Err(e) => break Err((e, None)),
            };
            usage.input_tokens += resp.usage.input_tokens;
            usage.output_tokens += resp.usage.output_tokens;
            match finish(&request, &resp) {
                Ok(c) => break Ok(Completion { usage, ..c }),
                Err(problem) if repairs < policy.max_repairs => {
                    repairs += 1;
                    llm.inner.counters.repairs.fetch_add(1, Ordering::Relaxed);
                    current = repair_request(&request, &resp.text, &problem);
                }
                Err(problem) => {
                    break Err((
                        LlmError::InvalidOutput {
                            model: model.name.clone(),
                            repairs,
                            problem,
                            raw: resp.text.clone(),
                        },
                        Some(resp.text),
                    ))
                }
            }
        };
        let cost = model.config.cost(usage.input_tokens, usage.output_tokens);
        llm.settle(reserved, cost);
        match outcome {
            Ok(completion) => {
                self.commit(
                    &request,
                    &key,
                    started_ms,
                    started,
                    &completion,
                    cost,
                    attempts,
                    repairs,
                )?;
                Ok(Completion { key, ..completion })
            }
            Err((err, raw_text)) => {
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        input_tokens: usage.input_tokens,
                        output_tokens: usage.output_tokens,
                        cost,
                        attempts,
                        repairs,
                        error: Some(err.to_string()),
                        raw_text,
                        ..base
                    },
                    None,
                )?;
                Err(err)
            }
        }
    }

    /// Embeds `texts` (one call) through cache, budget and retries.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let llm = &self.llm;
        let model = &self.model;
        let started = Instant::now();
        let started_ms = now_ms();
        let key = model.identity.key("embed", json!(texts));
        let base = CallRecord {
            run: llm.inner.run.0,
            role: self.role.clone(),
            model: model.name.clone(),
            cache_key: key.clone(),
            started_at_ms: started_ms,
            ..CallRecord::default()
        };
        let cached = llm.lock_store().llm_cache_get(&key)?;
        if let Some(hit) = cached {
            if let Ok(vectors) = serde_json::from_str::<Vec<Vec<f32>>>(&hit.response) {
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        cache_hit: true,
                        ..base
                    },
                    None,
                )?;
                return Ok(vectors);
            }
        }
        let backend = match &model.exec {
            Exec::Live(b) => b.clone(),
            Exec::Replay { .. } => {
                return Err(LlmError::NotRecorded {
                    model: model.name.clone(),
                    key,
                })
            }
            Exec::Missing(why) => {
                return Err(LlmError::Failed {
                    model: model.name.clone(),
                    attempts: 0,
                    message: why.clone(),
                })
            }
        };
        let need = model
            .config
            .cost(texts.iter().map(|t| t.len() as u64 + 8).sum(), 0);
        llm.reserve(need)?;
        let deadline = started + Duration::from_secs_f64(llm.inner.config.client.deadline_s);
        let mut attempts = 0;
        let result = llm
            .with_retries(model, &mut attempts, deadline, || backend.embed(texts))
            .await;
        let cost = result
            .as_ref()
            .map_or(0.0, |r| model.config.cost(r.usage.input_tokens, 0));
        llm.settle(need, cost);
        match result {
            Ok(resp) => {
                let response = serde_json::to_string(&resp.vectors).expect("vectors serialise");
                let request_json = json!({"input": texts}).to_string();
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        input_tokens: resp.usage.input_tokens,
                        cost,
                        attempts,
                        ..base
                    },
                    Some(&CacheEntry {
                        key: &key,
                        backend: &model.identity.backend,
                        model: &model.identity.model,
                        kind: "embed",
                        request: &request_json,
                        response: &response,
                        input_tokens: resp.usage.input_tokens,
                        output_tokens: 0,
                        cost,
                    }),
                )?;
                Ok(resp.vectors)
            }
            Err(err) => {
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        attempts,
                        error: Some(err.to_string()),
                        ..base
                    },
                    None,
                )?;
                Err(err)
            }
        }
    }
}
