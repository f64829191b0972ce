//! Verb-phrase ellipsis: a clause that stops at its auxiliary ("Teo
//! suspects he didn't.", "And he knew I would.", "pretends he doesn't")
//! means the verb phrase of a clause before it. The elided phrase is found
//! by parallelism: the latest clause whose subject is the same person, else
//! the latest whose auxiliary is of the same kind ("I would" ← "I'd never
//! open it alone"), and it is put in its base form after `do` and the
//! modals ("he didn't" + "got away with it" → "he didn't get away with it").

use crate::text::spans::words;

/// The kind of auxiliary a clause ends on, or a subject's contraction
/// carries (`I'd` → would).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Aux {
    Do,
    Would,
    Will,
    Can,
    Be,
    Have,
}

impl Aux {
    /// The auxiliary a lowercase word is, negated forms included.
    pub(super) fn of(word: &str) -> Option<Aux> {
        let w = word.replace('’', "'");
        let w = w.strip_suffix("n't").unwrap_or(&w);
        Some(match w {
            "do" | "does" | "did" | "don" | "doesn" | "didn" => Aux::Do,
            "would" | "wouldn" | "'d" | "should" | "shouldn" | "might" | "must" => Aux::Would,
            "will" | "wo" | "'ll" | "shall" => Aux::Will,
            "can" | "ca" | "could" | "couldn" => Aux::Can,
            "is" | "isn" | "was" | "wasn" | "are" | "aren" | "were" | "weren" | "am" | "'s"
            | "'re" | "'m" => Aux::Be,
            "has" | "hasn" | "have" | "haven" | "had" | "hadn" | "'ve" => Aux::Have,
            _ => return None,
        })
    }

    /// Whether the verb after this auxiliary stands in its base form.
    fn takes_base(self) -> bool {
        matches!(self, Aux::Do | Aux::Would | Aux::Will | Aux::Can)
    }
}

/// Whether a clause's words (lowercase, from its subject on) stop at an
/// auxiliary: a subject, the auxiliary, perhaps a negation — nothing else.
pub(super) fn ends_elided(clause: &[String]) -> Option<Aux> {
    let last = clause.last()?;
    let aux = if matches!(last.as_str(), "not" | "never") {
        clause
            .len()
            .checked_sub(2)
            .and_then(|k| Aux::of(&clause[k]))
    } else {
        Aux::of(last)
    };
    (clause.len() <= 3).then_some(aux).flatten()
}

/// A clause of an earlier sentence that can lend its verb phrase: who its
/// subject is (as resolved by the caller) and the phrase.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Antecedent {
    /// The subject's word as written (`he`, `I'd`, `Quinton`).
    pub subject: String,
    /// Index of the subject among the sentence's words.
    pub at: usize,
    /// The auxiliary the clause carries (`Do` when its verb is finite).
    pub aux: Aux,
    /// The verb phrase as written, without the auxiliary and a leading
    /// negation.
    pub phrase: String,
}

/// Words that can open a clause as its subject.
fn is_subject(lower: &str, is_name: &dyn Fn(usize) -> bool, k: usize) -> bool {
    let base = lower.split('\'').next().unwrap_or(lower);
    matches!(base, "i" | "he" | "she" | "you" | "we" | "they") || is_name(k)
}

/// Every clause of `sentence` with a subject and a verb phrase after it.
/// `is_name(k)` says whether word `k` names a character.
pub(super) fn antecedents(sentence: &str, is_name: &dyn Fn(usize) -> bool) -> Vec<Antecedent> {
    let ws = words(sentence, 0);
    let lower: Vec<String> = ws
        .iter()
        .map(|w| w.text.to_lowercase().replace('’', "'"))
        .collect();
    let mut out = Vec::new();
    for k in 0..ws.len() {
        if !is_subject(&lower[k], is_name, k) {
            continue;
        }
        // A contraction on the subject is its auxiliary (`I'd`, `she's`).
        let contracted = lower[k].find('\'').and_then(|at| Aux::of(&lower[k][at..]));
        let mut v = k + 1;
        let mut aux = contracted;
        while v < ws.len() {
            let w = lower[v].as_str();
            if let (None, Some(a)) = (aux, Aux::of(w)) {
                aux = Some(a);
            } else if !matches!(w, "not" | "never" | "just" | "still" | "always" | "also") {
                break;
            }
            v += 1;
        }
        if v >= ws.len() {
            continue;
        }
        let start = ws[v].start;
        let phrase: String = sentence.chars().skip(start).collect();
        let phrase = phrase
            .trim()
            .trim_end_matches(['.', '!', '?', ',', ';', ':', '…'])
            .trim()
            .to_owned();
        if phrase.is_empty() {
            continue;
        }
        out.push(Antecedent {
            subject: ws[k].text.clone(),
            at: k,
            aux: aux.unwrap_or(Aux::Do),
            phrase,
        });
    }
    out
}

/// The phrase an elided clause means: the latest antecedent whose subject
/// `same_person` accepts, else the latest with the same auxiliary; in its
/// base form when `aux` takes one.
pub(super) fn resolve(
    aux: Aux,
    candidates: &[Antecedent],
    same_person: &dyn Fn(&Antecedent) -> bool,
) -> Option<(Antecedent, String)> {
    let chosen = candidates
        .iter()
        .rev()
        .find(|c| same_person(c))
        .or_else(|| candidates.iter().rev().find(|c| c.aux == aux))?;
    let phrase = if aux.takes_base() && chosen.aux == Aux::Do {
        base_phrase(&chosen.phrase)
    } else {
        chosen.phrase.clone()
    };
    Some((chosen.clone(), phrase))
}

/// A phrase with its first verb in the base form (`knows she's lying` →
/// `know she's lying`, `got away with it` → `get away with it`).
pub(super) fn base_phrase(phrase: &str) -> String {
    let mut parts = phrase.splitn(2, ' ');
    let verb = parts.next().unwrap_or_default();
    let rest = parts.next();
    let base = base_form(verb);
    match rest {
        Some(r) => format!("{base} {r}"),
        None => base,
    }
}

/// The base form of a finite verb (third person or past), as far as
/// spelling shows it.
pub(super) fn base_form(verb: &str) -> String {
    let lower = verb.to_lowercase();
    const IRREGULAR: &[(&str, &str)] = &[
        ("got", "get"),
        ("knew", "know"),
        ("thought", "think"),
        ("was", "be"),
        ("were", "be"),
        ("is", "be"),
        ("has", "have"),
        ("had", "have"),
        ("did", "do"),
        ("does", "do"),
        ("said", "say"),
        ("saw", "see"),
        ("took", "take"),
        ("told", "tell"),
        ("found", "find"),
        ("went", "go"),
        ("came", "come"),
        ("made", "make"),
        ("gave", "give"),
        ("left", "leave"),
        ("meant", "mean"),
        ("heard", "hear"),
        ("felt", "feel"),
        ("kept", "keep"),
        ("lied", "lie"),
        ("tried", "try"),
        ("threw", "throw"),
        ("stole", "steal"),
        ("brought", "bring"),
        ("bought", "buy"),
        ("sold", "sell"),
        ("paid", "pay"),
        ("ran", "run"),
        ("wrote", "write"),
        ("understood", "understand"),
    ];
    if let Some((_, base)) = IRREGULAR.iter().find(|(form, _)| *form == lower) {
        return (*base).to_owned();
    }
    let keep_case = |base: &str| base.to_owned();
    if let Some(stem) = lower.strip_suffix("ies") {
        return keep_case(&format!("{stem}y"));
    }
    for ending in ["sses", "shes", "ches", "xes", "zes", "oes"] {
        if lower.ends_with(ending) {
            return keep_case(&lower[..lower.len() - 2]);
        }
    }
    if lower.ends_with('s') && !lower.ends_with("ss") && lower.len() > 3 {
        return keep_case(&lower[..lower.len() - 1]);
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_lowercase).collect()
    }

    #[test]
    fn a_clause_that_stops_at_its_auxiliary_is_elided() {
        assert_eq!(ends_elided(&lower("he didn't")), Some(Aux::Do));
        assert_eq!(ends_elided(&lower("I would")), Some(Aux::Would));
        assert_eq!(ends_elided(&lower("he does not")), Some(Aux::Do));
        assert_eq!(ends_elided(&lower("he didn't go")), None);
        assert_eq!(ends_elided(&lower("the key")), None);
    }

    #[test]
    fn the_elided_phrase_is_the_parallel_clause_in_its_base_form() {
        let none = |_: usize| false;
        // "Quinton thinks he got away with it. Teo suspects he didn't."
        let quinton = |k: usize| k == 0;
        let c = antecedents("Quinton thinks he got away with it.", &quinton);
        assert_eq!(c.len(), 2);
        let (chosen, phrase) = resolve(Aux::Do, &c, &|a| a.subject == "he").unwrap();
        assert_eq!((chosen.at, phrase.as_str()), (2, "get away with it"));
        // "He knew I'd never open it alone." / "And he knew I would.": not the
        // same person, the same auxiliary; the negation stays with its clause.
        let c = antecedents("He knew I'd never open it alone.", &none);
        let (_, phrase) = resolve(Aux::Would, &c, &|_| false).unwrap();
        assert_eq!(phrase, "open it alone");
        // "He knows she's lying, and pretends he doesn't."
        let c = antecedents("He knows she's lying", &none);
        let (_, phrase) = resolve(Aux::Do, &c, &|a| a.subject == "He").unwrap();
        assert_eq!(phrase, "know she's lying");
        // Nothing to lend.
        assert!(resolve(Aux::Do, &antecedents("Nothing.", &none), &|_| true).is_none());
    }

    #[test]
    fn base_forms() {
        for (verb, base) in [
            ("knows", "know"),
            ("believes", "believe"),
            ("tries", "try"),
            ("watches", "watch"),
            ("got", "get"),
            ("opens", "open"),
            ("pass", "pass"),
        ] {
            assert_eq!(base_form(verb), base, "{verb}");
        }
    }
}
