-- Conversation memory: every stored message with its embedding. Vectors are
-- 1536-d; smaller models are zero-padded (cosine is unchanged) and every search
-- filters on embedding_model, so vectors of different models are never compared.

create table if not exists public.chat_messages (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: timestamps can tie (a turn's two messages, coarse clocks).
  seq bigint generated always as identity,
  session_id text not null check (char_length(session_id) between 1 and 200),
  -- Whose conversation: 'user:<uuid>' for a signed-in user, 'key:<name>' for an API key,
  -- 'anonymous' otherwise. Sessions are looked up within an owner, never across owners.
  owner text not null default 'anonymous',
  user_id uuid default auth.uid(),
  role text not null check (role in ('user', 'assistant', 'system', 'tool')),
  content text not null check (char_length(content) <= 64000),
  embedding vector(1536),
  embedding_model text,
  created_at timestamptz not null default clock_timestamp(),
  check ((embedding is null) = (embedding_model is null))
);

-- Recent messages of a session, and the btree side of filtered vector search.
create index if not exists chat_messages_owner_session_seq_idx
  on public.chat_messages (owner, session_id, seq desc);
create index if not exists chat_messages_user_seq_idx
  on public.chat_messages (user_id, seq desc);
-- Approximate nearest neighbours by cosine distance.
create index if not exists chat_messages_embedding_hnsw_idx
  on public.chat_messages using hnsw (embedding vector_cosine_ops);

alter table public.chat_messages enable row level security;

drop policy if exists chat_messages_select_own on public.chat_messages;
create policy chat_messages_select_own on public.chat_messages
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists chat_messages_insert_own on public.chat_messages;
create policy chat_messages_insert_own on public.chat_messages
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists chat_messages_delete_own on public.chat_messages;
create policy chat_messages_delete_own on public.chat_messages
  for delete to authenticated using (user_id = (select auth.uid()));

grant select, insert, delete on public.chat_messages to authenticated;
grant all on public.chat_messages to service_role;
