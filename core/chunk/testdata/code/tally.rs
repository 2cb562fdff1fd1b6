//! Tally service: records postings and serves balances over HTTP.

use std::collections::HashMap;
use std::env;
use std::sync::{Arc, Mutex};

use actix_web::{get, post, web, App, HttpResponse, HttpServer, Responder};
use serde::{Deserialize, Serialize};

/// A posting moves an amount between two accounts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Posting {
    pub id: u64,
    pub from_account: String,
    pub to_account: String,
    pub amount_cents: i64,
}

/// Where postings are kept.
pub trait PostingStore: Send + Sync {
    /// Appends a posting and returns its id.
    fn append(&self, posting: Posting) -> u64;
    /// The balance of one account, in cents.
    fn balance(&self, account: &str) -> i64;
}

/// An in-memory store, lost on restart: for tests and demos only.
#[derive(Default)]
pub struct MemoryStore {
    postings: Mutex<Vec<Posting>>,
}

impl PostingStore for MemoryStore {
    fn append(&self, mut posting: Posting) -> u64 {
        let mut postings = self.postings.lock().unwrap();
        posting.id = postings.len() as u64 + 1;
        let id = posting.id;
        postings.push(posting);
        id
    }

    fn balance(&self, account: &str) -> i64 {
        let postings = self.postings.lock().unwrap();
        postings.iter().fold(0, |sum, p| {
            if p.to_account == account {
                sum + p.amount_cents
            } else if p.from_account == account {
                sum - p.amount_cents
            } else {
                sum
            }
        })
    }
}

/// Rejects postings that would overdraw the sending account.
pub fn validate(store: &dyn PostingStore, posting: &Posting) -> Result<(), String> {
    if posting.amount_cents <= 0 {
        return Err(format!("amount must be positive, got {}", posting.amount_cents));
    }
    if store.balance(&posting.from_account) < posting.amount_cents {
        return Err("insufficient funds".to_string());
    }
    Ok(())
}

#[post("/postings")]
async fn create_posting(store: web::Data<Arc<dyn PostingStore>>, body: web::Json<Posting>) -> impl Responder {
    match validate(store.get_ref().as_ref(), &body) {
        Ok(()) => HttpResponse::Created().json(store.append(body.into_inner())),
        Err(e) => HttpResponse::BadRequest().body(e),
    }
}

#[get("/balances/{account}")]
async fn get_balance(store: web::Data<Arc<dyn PostingStore>>, path: web::Path<String>) -> impl Responder {
    let mut out = HashMap::new();
    out.insert("balance_cents", store.balance(&path.into_inner()));
    HttpResponse::Ok().json(out)
}

mod limits {
    /// The largest single posting accepted, in cents.
    pub const MAX_POSTING_CENTS: i64 = 10_000_000;
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = env::var("TALLY_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(8088);
    let store: Arc<dyn PostingStore> = Arc::new(MemoryStore::default());
    HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(store.clone()))
            .service(create_posting)
            .service(get_balance)
    })
    .bind(("0.0.0.0", port))?
    .run()
    .await
}

/// The admin API, mounted by the operator binary.
pub fn admin_routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/admin/postings/{id}", web::delete().to(delete_posting));
}

/// The read-only API on axum, for the reporting sidecar.
pub fn report_router() -> axum::Router {
    axum::Router::new().route("/report/daily", axum::routing::get(daily_report))
}

#[derive(Debug, Clone, PartialEq)]
pub enum LedgerError {
    UnknownAccount(String),
    Overdraft { account: String, short_cents: i64 },
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownAccount(a) => write!(f, "unknown account {a}"),
            Self::Overdraft { account, short_cents } => write!(f, "{account} is short by {short_cents} cents"),
        }
    }
}

impl From<std::num::ParseIntError> for LedgerError {
    fn from(_: std::num::ParseIntError) -> Self {
        Self::UnknownAccount(String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_rejects_overdraft() {
        let store = MemoryStore::default();
        let p = Posting { from: "alice".into(), to: "bob".into(), amount_cents: 500 };
        assert!(validate(&store, &p).is_err());
    }

    #[actix_web::test]
    async fn get_balance_of_new_account_is_zero() {
        let store: Arc<dyn PostingStore> = Arc::new(MemoryStore::default());
        assert_eq!(store.balance("carol"), 0);
    }
}
