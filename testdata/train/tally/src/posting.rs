//! Postings: money moved between two accounts of the tally.

use std::collections::HashMap;

/// A transfer of money between two accounts, in cents.
#[derive(Debug, Clone, PartialEq)]
pub struct Posting {
    pub from: String,
    pub to: String,
    pub cents: i64,
}

/// Keeps every posting in arrival order and answers balance queries.
#[derive(Default)]
pub struct Journal {
    postings: Vec<Posting>,
}

impl Journal {
    /// Records a posting after checking that the sender can cover it.
    pub fn record(&mut self, p: Posting) -> Result<(), String> {
        if self.balance_of(&p.from) < p.cents {
            return Err(format!("{} cannot cover {} cents", p.from, p.cents));
        }
        self.postings.push(p);
        Ok(())
    }

    /// Sums the money that came in minus the money that went out.
    pub fn balance_of(&self, account: &str) -> i64 {
        self.postings.iter().map(|p| {
            if p.to == account { p.cents } else if p.from == account { -p.cents } else { 0 }
        }).sum()
    }

    /// Totals per account, for the nightly statement export.
    pub fn totals(&self) -> HashMap<String, i64> {
        let mut out = HashMap::new();
        for p in &self.postings {
            *out.entry(p.to.clone()).or_insert(0) += p.cents;
            *out.entry(p.from.clone()).or_insert(0) -= p.cents;
        }
        out
    }
}
