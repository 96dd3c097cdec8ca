-- The sentence embedder's vectors (use-lite-hashing-v1, local only) stay out of the HNSW
-- index, as the other offline embedders' do (20261203000000_growing_session.sql): recall
-- does not search them by default (their ranking weight is 0, DEFAULT_SEMANTIC_WEIGHTS),
-- and inserting a vector into the index was about 8 ms of every turn on PGlite. A search
-- for them (a deployment that gives them a weight, past 2,000 messages) scans the
-- caller's rows instead. Rebuilding the index is a one-off cost of this migration, and it
-- blocks writes to chat_messages while it runs: on a large table, apply it in a quiet hour
-- (or build the new index under another name with CREATE INDEX CONCURRENTLY first).

drop index if exists public.chat_messages_embedding_hnsw_idx;
create index chat_messages_embedding_hnsw_idx
  on public.chat_messages using hnsw (embedding vector_cosine_ops)
  where embedding_model not in ('hashing-v1', 'word-vectors-sif-v1', 'use-lite-hashing-v1');
