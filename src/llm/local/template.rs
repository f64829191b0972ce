//! Chat templates: the GGUF's `tokenizer.chat_template` (Jinja) rendered with
//! minijinja, or ChatML when the file has none.

use minijinja::{context, Environment, Error, ErrorKind};
use serde::Serialize;

use super::{ChatTurn, LocalError};

/// ChatML, used when the model file carries no template.
pub const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// A compiled chat template.
pub struct ChatTemplate {
    env: Environment<'static>,
    /// True when the file had no template and ChatML is used.
    pub fallback: bool,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("fallback", &self.fallback)
            .finish()
    }
}

#[derive(Serialize)]
struct Msg<'a> {
    role: &'a str,
    content: &'a str,
}

impl ChatTemplate {
    /// Compiles `source`, or ChatML when `None`.
    pub fn new(source: Option<String>) -> Result<Self, LocalError> {
        let fallback = source.is_none();
        let mut env = Environment::new();
        // HF templates call Python string methods (`.strip()`, `.startswith()`).
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |msg: String| -> Result<String, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, msg))
        });
        env.add_template_owned("chat", source.unwrap_or_else(|| CHATML.to_string()))
            .map_err(|e| LocalError::Template(e.to_string()))?;
        Ok(ChatTemplate { env, fallback })
    }

    /// Renders `turns` with the generation prompt for the assistant appended.
    pub fn render(&self, turns: &[ChatTurn], bos: &str, eos: &str) -> Result<String, LocalError> {
        let messages: Vec<Msg> = turns
            .iter()
            .map(|t| Msg {
                role: &t.role,
                content: &t.text,
            })
            .collect();
        let tmpl = self
            .env
            .get_template("chat")
            .map_err(|e| LocalError::Template(e.to_string()))?;
        tmpl.render(context! {
            messages => messages,
            add_generation_prompt => true,
            bos_token => bos,
            eos_token => eos,
        })
        .map_err(|e| LocalError::Template(format!("{e:#}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatml_fallback_and_python_methods() {
        let t = ChatTemplate::new(None).unwrap();
        let out = t.render(&[ChatTurn::new("user", "hi")], "", "").unwrap();
        assert_eq!(
            out,
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
        );
        let t = ChatTemplate::new(Some(
            "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content.strip() }}{% endfor %}".into(),
        ))
        .unwrap();
        assert_eq!(
            t.render(&[ChatTurn::new("user", "  x ")], "<s>", "")
                .unwrap(),
            "<s>[user]x"
        );
    }

    #[test]
    fn raise_exception_is_an_error() {
        let t = ChatTemplate::new(Some("{{ raise_exception('no system role') }}".into())).unwrap();
        let e = t
            .render(&[ChatTurn::new("system", "x")], "", "")
            .unwrap_err();
        assert!(e.to_string().contains("no system role"), "{e}");
    }
}
