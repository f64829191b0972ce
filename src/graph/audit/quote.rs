//! The quote auditor's own reading of a claim: the pronoun's nearest
//! antecedent in the script, the attitude cue an explicit state needs (negated
//! exactly when the state is), and the causal wording a cause needs.

use crate::graph::generate::cast::{pronoun_gender, Cast};
use crate::graph::schema::*;
use crate::graph::BlockContext;
use crate::screenplay::ElementKind;
use crate::text::spans::{char_slice, words};

/// Whether `who` is the nearest antecedent of a he/she/his/her/him in the
/// quote: reading back from the pronoun through the block (names in action
/// lines and the quote, the speakers of lines), the first character whose
/// gender fits. The pronoun is re-resolved from the script alone, not from
/// the generator's bookkeeping.
pub(super) fn antecedent_is(
    ctx: &BlockContext<'_>,
    cast: &Cast,
    ev: &Evidence,
    who: &Node,
) -> bool {
    let Some(member) = cast.by_id(&who.id) else {
        return false;
    };
    let quote = words(&ev.quote, 0);
    let Some(at) = quote
        .iter()
        .position(|w| pronoun_gender(&w.text.to_lowercase()).is_some())
    else {
        return false;
    };
    let Some(gender) = pronoun_gender(&quote[at].text.to_lowercase()) else {
        return false;
    };
    let [first, last] = ctx.block.elements;
    let Some(el) = ctx.play.elements.get(ev.element) else {
        return false;
    };
    let before_quote = char_slice(&el.text, 0, ev.start + quote[at].start);
    // Read back once for a character known to be of the pronoun's gender,
    // then, if none, for one whose gender is never shown.
    let read_back = |fits: &dyn Fn(&crate::graph::generate::cast::Member) -> bool| {
        let named_back = |text: &str| -> Option<String> {
            words(text, 0)
                .iter()
                .rev()
                .filter_map(|w| cast.named(&w.text))
                .find(|m| fits(m))
                .map(|m| m.id.clone())
        };
        let mut found = if el.kind == ElementKind::Action {
            named_back(&before_quote)
        } else {
            None
        };
        let mut j = ev.element;
        while found.is_none() && j > first {
            j -= 1;
            let e = &ctx.play.elements[j];
            found = match e.kind {
                ElementKind::Action => named_back(&e.text),
                ElementKind::Dialogue => e
                    .speaker
                    .as_deref()
                    .and_then(|sp| cast.named(sp.split_whitespace().next().unwrap_or(sp)))
                    .filter(|m| fits(m))
                    .map(|m| m.id.clone()),
                _ => None,
            };
        }
        found
    };
    let found = read_back(&|m| m.gender == Some(gender))
        .or_else(|| read_back(&|m| m.gender.is_none()))
        .or_else(|| {
            // Nobody before it fits: the one character of that gender the
            // rest of the block names in its action.
            let mut later: Vec<String> = Vec::new();
            for e in &ctx.play.elements[ev.element..=last.min(ctx.play.elements.len() - 1)] {
                if e.kind != ElementKind::Action {
                    continue;
                }
                for w in words(&e.text, 0) {
                    if let Some(m) = cast.named(&w.text).filter(|m| m.gender == Some(gender)) {
                        if !later.contains(&m.id) {
                            later.push(m.id.clone());
                        }
                    }
                }
            }
            (later.len() == 1).then(|| later.remove(0))
        });
    found.as_deref() == Some(member.id.as_str())
}

/// Words whose presence in a quote states a mental state of each attitude
/// family: the quote auditor's own reading, apart from the generator's.
pub(super) fn family_cues(family: &str) -> &'static [&'static str] {
    match family {
        "belief" => &[
            "think",
            "thinks",
            "thought",
            "believe",
            "believes",
            "believed",
            "know",
            "knows",
            "knew",
            "realize",
            "realizes",
            "realized",
            "realizing",
            "realise",
            "realises",
            "realising",
            "understand",
            "understands",
            "understood",
            "suspect",
            "suspects",
            "suspected",
            "sees",
            "saw",
            "see",
            "notices",
            "noticed",
            "hears",
            "heard",
            "mistakes",
            "mistook",
            "sure",
            "assume",
            "assumes",
            "assumed",
            "suppose",
            "supposes",
            "supposed",
            "reckon",
            "reckons",
            "reckoned",
            "expect",
            "expects",
            "expected",
            "imagine",
            "imagines",
            "imagined",
            "certain",
            "convinced",
            "positive",
            "aware",
            "learns",
            "learned",
            "learnt",
            "discovers",
            "discovered",
            "remember",
            "remembers",
            "remembered",
            "recognizes",
            "recognized",
            "recognises",
            "recognised",
            "notice",
            "finds",
            "found",
            "works",
            "worked",
            "figures",
            "figured",
        ],
        "desire" => &[
            "want",
            "wants",
            "wanted",
            "hope",
            "hopes",
            "hoped",
            "wish",
            "wishes",
            "need",
            "needs",
            "help",
            "helps",
            "save",
            "saves",
            "protect",
            "protects",
            "hurt",
            "ruin",
            "betray",
            "rescue",
            "ask",
            "tell",
            "trust",
            "forgive",
            "believe",
            "call",
            "give",
            "longs",
            "longed",
            "craves",
            "craved",
            "desperate",
            "eager",
            "keen",
        ],
        "intention" => &[
            "i'll",
            "will",
            "won't",
            "going",
            "plan",
            "plans",
            "planned",
            "decide",
            "decides",
            "decided",
            "intend",
            "intends",
            "mean",
            "means",
            "meant",
            "need",
            "needs",
            "i'm",
            "resolves",
            "resolved",
            "vows",
            "vowed",
            "determined",
            "try",
            "tries",
            "tried",
        ],
        "emotion" => &[
            "fear",
            "fears",
            "jealousy",
            "guilt",
            "relief",
            "dread",
            "anger",
            "shame",
            "grief",
            "panic",
            "envy",
            "hope",
            "love",
            "rage",
            "hate",
            "hates",
            "bitter",
            "relieved",
            "ashamed",
            "horrified",
            "uneasy",
            "breaking",
            "angry",
            "furious",
            "afraid",
            "scared",
            "terrified",
            "guilty",
            "jealous",
            "resents",
            "resent",
            "resented",
            "regrets",
            "regret",
            "regretted",
            "worries",
            "worried",
            "frightened",
        ],
        "pretense" => &[
            "lying",
            "lie",
            "lies",
            "lied",
            "pretend",
            "pretends",
            "pretending",
        ],
        _ => &[],
    }
}

/// An explicit mental state is stated in its quotes: a cue of its attitude
/// family is there, negated exactly when the state is.
pub(super) fn stated(n: &Node) -> Result<(), String> {
    let (Some(attitude), Some(true)) = (n.attitude, n.explicit) else {
        return Ok(());
    };
    // A belief may be about another's mind ("He thinks I don't know"): any
    // mental cue states it, and a negation inside its content is not its own.
    let all: Vec<&str>;
    let cues: &[&str] = if attitude.family() == "belief" {
        all = ["belief", "desire", "intention", "emotion", "pretense"]
            .iter()
            .flat_map(|f| family_cues(f).iter().copied())
            .collect();
        &all
    } else {
        family_cues(attitude.family())
    };
    let content_negated = n.content.as_deref().is_some_and(|c| {
        words(c, 0).iter().any(|w| {
            let w = w.text.to_lowercase().replace('’', "'");
            matches!(w.as_str(), "not" | "never") || w.ends_with("n't")
        })
    });
    let mut found = attitude.family() == "belief" && n.evidence.iter().any(|ev| judged(&ev.quote));
    let mut negated_cue = false;
    let mut any_negation = false;
    for ev in &n.evidence {
        let ws: Vec<String> = words(&ev.quote, 0)
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        for (k, w) in ws.iter().enumerate() {
            let negation = matches!(w.as_str(), "not" | "never") || w.ends_with("n't");
            any_negation |= negation;
            if cues.contains(&w.as_str()) || negation && attitude == Attitude::Intention {
                found = true;
                negated_cue |= ws[k.saturating_sub(2)..k]
                    .iter()
                    .any(|p| matches!(p.as_str(), "not" | "never") || p.ends_with("n't"));
            }
        }
    }
    if !found {
        return Err(format!(
            "no {} cue in the quote states it",
            attitude.family()
        ));
    }
    if n.negated && !any_negation {
        return Err("negated, but nothing in the quote negates it".to_owned());
    }
    if !n.negated && negated_cue && !content_negated && !any_positive_cue(n, cues) {
        return Err("the quote negates it, but the state is not negated".to_owned());
    }
    Ok(())
}

/// Whether a line's sentence judges something by its shape, with no mental
/// verb: `So you're…`, `…, I'd say`, `he'll…`/`she's going to…`, `it's not
/// enough`/`that was the last…`, `no, you weren't`. The quote auditor's own
/// reading of the shapes the generator's `judgments` propose from.
pub(super) fn judged(quote: &str) -> bool {
    let ws: Vec<String> = words(quote, 0)
        .iter()
        .map(|w| w.text.to_lowercase().replace('’', "'"))
        .collect();
    let at = |k: usize| ws.get(k).map_or("", String::as_str);
    let n = ws.len();
    let is_aux = |w: &str| {
        let w = w.strip_suffix("n't").unwrap_or(w);
        matches!(
            w,
            "do" | "does"
                | "did"
                | "is"
                | "was"
                | "are"
                | "were"
                | "has"
                | "have"
                | "had"
                | "will"
                | "wo"
                | "would"
                | "can"
                | "ca"
                | "could"
        )
    };
    let inference = at(0) == "so" && n >= 3 && !is_aux(at(1)) && at(1) != "what";
    let hedge = n >= 3
        && (matches!((at(n - 2), at(n - 1)), ("i'd", "say") | ("i'd", "guess"))
            || at(n - 2) == "i"
                && matches!(
                    at(n - 1),
                    "reckon"
                        | "think"
                        | "bet"
                        | "guess"
                        | "suppose"
                        | "imagine"
                        | "expect"
                        | "believe"
                ));
    let third = |w: &str| {
        matches!(w, "he" | "she" | "they") || w.chars().next().is_some_and(char::is_uppercase)
    };
    let raw: Vec<String> = words(quote, 0).into_iter().map(|w| w.text).collect();
    let future = (0..n).any(|k| {
        matches!(at(k), "he'll" | "she'll" | "they'll")
            || (third(at(k)) || raw.get(k).is_some_and(|r| third(r)))
                && (matches!(at(k + 1), "will" | "won't")
                    || at(k + 1) == "is" && at(k + 2) == "going")
            || matches!(at(k), "he's" | "she's" | "they're")
                && at(k + 1) == "going"
                && at(k + 2) == "to"
    });
    let verdict = ws
        .iter()
        .any(|w| matches!(w.as_str(), "it's" | "that's" | "it" | "that" | "this"))
        && ws.iter().any(|w| {
            matches!(
                w.as_str(),
                "enough"
                    | "worth"
                    | "true"
                    | "untrue"
                    | "false"
                    | "wrong"
                    | "fair"
                    | "unfair"
                    | "fault"
                    | "last"
                    | "late"
                    | "lie"
                    | "mistake"
                    | "real"
                    | "fake"
                    | "over"
            )
        });
    let rest = if at(0) == "no" {
        &ws[1.min(n)..]
    } else {
        &ws[..]
    };
    let contradiction = rest.first().is_some_and(|w| w == "you")
        && rest
            .iter()
            .skip(1)
            .any(|w| w.ends_with("n't") || w == "not");
    let kin = |w: &str| {
        matches!(
            w,
            "dad"
                | "mum"
                | "mom"
                | "father"
                | "mother"
                | "grandad"
                | "granddad"
                | "grandpa"
                | "grandma"
                | "gran"
                | "nan"
        )
    };
    let family_past = (0..n.min(2)).any(|k| {
        kin(at(k))
            && (at(k + 1).ends_with("ed")
                || matches!(
                    at(k + 1),
                    "threw"
                        | "took"
                        | "gave"
                        | "left"
                        | "said"
                        | "told"
                        | "knew"
                        | "made"
                        | "kept"
                        | "sold"
                        | "stole"
                        | "lost"
                        | "hid"
                        | "found"
                        | "went"
                        | "came"
                        | "saw"
                        | "built"
                        | "bought"
                        | "got"
                        | "wrote"
                        | "paid"
                        | "never"
                ))
    });
    let explanation = ws.iter().skip(2).any(|w| w == "because");
    inference || hedge || future || verdict || contradiction || family_past || explanation
}

/// Whether some cue in the quotes stands without a negation before it.
pub(super) fn any_positive_cue(n: &Node, cues: &[&str]) -> bool {
    n.evidence.iter().any(|ev| {
        let ws: Vec<String> = words(&ev.quote, 0)
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        ws.iter().enumerate().any(|(k, w)| {
            cues.contains(&w.as_str())
                && !ws[k.saturating_sub(2)..k]
                    .iter()
                    .any(|p| matches!(p.as_str(), "not" | "never") || p.ends_with("n't"))
        })
    })
}

/// Words that say one thing brings another about.
pub(super) const CAUSAL_WORDS: &[&str] = &[
    "because",
    "so",
    "made",
    "makes",
    "make",
    "lets",
    "let",
    "allows",
    "allowed",
    "stops",
    "stopped",
    "keeps",
    "kept",
    "prevents",
    "prevented",
    "why",
    "therefore",
    "since",
    "cause",
    "caused",
    "causes",
    "decision",
    "choice",
    "order",
];

/// A causal claim (not `precedes`) is worded as one in its quotes.
pub(super) fn causal_language(e: &Edge) -> Result<(), String> {
    if !e.kind.claims_cause() {
        return Ok(());
    }
    let worded = e.evidence.iter().any(|ev| {
        words(&ev.quote, 0)
            .iter()
            .any(|w| CAUSAL_WORDS.contains(&w.text.to_lowercase().as_str()))
    });
    if worded {
        Ok(())
    } else {
        Err(format!(
            "{}: nothing in the quotes says one brings the other about",
            e.kind.as_str()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(quote: &str, attitude: Attitude, negated: bool, content: &str) -> Node {
        let mut n = Node::new("mental_state:x", NodeKind::MentalState, "x");
        n.attitude = Some(attitude);
        n.negated = negated;
        n.explicit = Some(true);
        n.content = Some(content.to_owned());
        n.evidence = vec![Evidence {
            block: 0,
            element: 0,
            start: 0,
            end: quote.chars().count(),
            quote: quote.to_owned(),
            keyframes: Vec::new(),
        }];
        n
    }

    #[test]
    fn an_explicit_state_is_read_back_from_its_quote_polarity_included() {
        let know = |negated| {
            state(
                "Quinton doesn't know the ring has left the safe",
                Attitude::Knowledge,
                negated,
                "the ring has left the safe",
            )
        };
        assert!(stated(&know(true)).is_ok());
        // The quote negates it; the state says otherwise.
        assert!(stated(&know(false)).is_err());
        // Negated with nothing in the quote to negate it.
        let s = state("June sees it", Attitude::Knowledge, true, "it");
        assert!(stated(&s).is_err());
        // No cue of the family at all.
        let s = state("He pockets the key", Attitude::Desire, false, "the key");
        assert!(stated(&s).is_err());
        // A belief about another's mind carries that mind's negation in its content.
        let s = state(
            "He thinks I don't know when he's lying",
            Attitude::Belief,
            false,
            "He thinks I don't know when he's lying",
        );
        assert!(stated(&s).is_ok());
    }

    #[test]
    fn a_cause_needs_causal_words_and_an_order_does_not() {
        let mut e = Edge::new(EdgeKind::Causes, "event:a", "event:b");
        e.evidence = vec![Evidence {
            block: 0,
            element: 0,
            start: 0,
            end: 10,
            quote: "Teo goes. Quinton opens his fist.".to_owned(),
            keyframes: Vec::new(),
        }];
        assert!(causal_language(&e).is_err());
        e.kind = EdgeKind::Precedes;
        assert!(causal_language(&e).is_ok());
        e.kind = EdgeKind::Motivates;
        e.evidence[0].quote = "Jealousy made the decision for her.".to_owned();
        assert!(causal_language(&e).is_ok());
    }
}
