-- 0013: the conversations of coderag ask --session: each turn's question
-- and answer, by session name, in order.
CREATE TABLE ask_turns (
  id       INTEGER PRIMARY KEY,
  session  TEXT NOT NULL,
  asked    TEXT NOT NULL,             -- RFC 3339
  question TEXT NOT NULL,
  answer   TEXT NOT NULL,
  mode     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX ask_turns_session ON ask_turns(session, id);
