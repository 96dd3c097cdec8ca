-- The SQL functions the stores call, so direct SQL callers and supabase-js RPC
-- callers (under RLS, with the caller's JWT) share one code path. Every function
-- pins its search_path (the vector type lives in "extensions" on Supabase, in
-- "public" elsewhere).

-- Top-k messages by cosine similarity. With a session filter the session's rows
-- are scanned exactly (sessions are small, and HNSW plus a filter can return
-- fewer than k rows); otherwise the HNSW index is walked with an iterative scan
-- (pgvector >= 0.8) so that filters still yield k rows when k exist.
create or replace function public.match_chat_messages(
  query_embedding vector(1536),
  match_count integer,
  match_threshold double precision,
  filter_embedding_model text,
  filter_session_id text default null,
  filter_user_id uuid default null,
  exclude_ids uuid[] default '{}',
  filter_owner text default null
)
returns table (
  id uuid,
  session_id text,
  role text,
  content text,
  created_at timestamptz,
  similarity double precision
)
language plpgsql stable
set search_path = public, extensions, pg_temp
as $$
#variable_conflict use_column
begin
  if filter_session_id is not null then
    return query
      with candidates as materialized (
        select m.id, m.session_id, m.role, m.content, m.created_at,
               m.embedding <=> query_embedding as distance
        from public.chat_messages m
        where m.session_id = filter_session_id
          and (filter_owner is null or m.owner = filter_owner)
          and (filter_user_id is null or m.user_id = filter_user_id)
          and m.embedding_model = filter_embedding_model
          and m.id <> all (exclude_ids)
      )
      select c.id, c.session_id, c.role, c.content, c.created_at, 1 - c.distance
      from candidates c
      where 1 - c.distance >= match_threshold
      order by c.distance
      limit match_count;
  else
    begin
      perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
    exception when others then
      null; -- pgvector < 0.8: plain HNSW scan
    end;
    return query
      select s.id, s.session_id, s.role, s.content, s.created_at, 1 - s.distance
      from (
        select m.id, m.session_id, m.role, m.content, m.created_at,
               m.embedding <=> query_embedding as distance
        from public.chat_messages m
        where m.embedding_model = filter_embedding_model
          and (filter_user_id is null or m.user_id = filter_user_id)
          and m.id <> all (exclude_ids)
        order by m.embedding <=> query_embedding
        limit match_count
      ) s
      where 1 - s.distance >= match_threshold
      order by s.distance;
  end if;
end
$$;

-- The owner key rows are stored and read under: a signed-in user's own key
-- (from the verified JWT, whatever the caller passes), else the caller's.
create or replace function public.chat_owner(p_owner text)
returns text
language sql stable
set search_path = public, pg_temp
as $$
  select coalesce('user:' || auth.uid()::text, p_owner)
$$;

-- Everything the loop's context stage reads, in one round trip: the session's
-- recent messages (kind 'recent') and the semantic matches outside that window
-- (kind 'match'), all within the caller's owner key.
create or replace function public.load_chat_context(
  p_session_id text,
  p_owner text,
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_recent_limit integer default 10,
  p_match_count integer default 5,
  p_match_threshold double precision default 0.3,
  p_scope text default 'session'
)
returns table (
  kind text,
  id uuid,
  session_id text,
  role text,
  content text,
  created_at timestamptz,
  similarity double precision
)
language plpgsql stable
set search_path = public, extensions, pg_temp
as $$
#variable_conflict use_column
declare
  caller_id uuid := auth.uid();
  owner_key text := public.chat_owner(p_owner);
  recent_ids uuid[];
begin
  select coalesce(array_agg(r.id), '{}') into recent_ids
  from (
    select m.id from public.chat_messages m
    where m.owner = owner_key and m.session_id = p_session_id
    order by m.seq desc
    limit p_recent_limit
  ) r;
  return query
    select 'recent'::text, m.id, m.session_id, m.role, m.content, m.created_at,
           null::double precision
    from public.chat_messages m
    where m.id = any (recent_ids)
    order by m.seq;
  if p_scope = 'user' and caller_id is not null then
    return query
      select 'match'::text, x.id, x.session_id, x.role, x.content, x.created_at, x.similarity
      from public.match_chat_messages(
        p_query_embedding, p_match_count, p_match_threshold, p_embedding_model,
        null, caller_id, recent_ids
      ) x;
  else
    -- The session's own rows (within the owner), scanned exactly.
    return query
      select 'match'::text, x.id, x.session_id, x.role, x.content, x.created_at, x.similarity
      from public.match_chat_messages(
        p_query_embedding, p_match_count, p_match_threshold, p_embedding_model,
        p_session_id, null, recent_ids, owner_key
      ) x;
  end if;
end
$$;

-- Audit rows, with the writer's identity set here rather than taken from the
-- caller: user_id from the verified JWT, and a signed-in user's own owner key.
-- Security definer, because nobody may insert into mcp_events directly.
create or replace function public.record_mcp_events(
  p_caller text,
  p_source text,
  p_session_id text,
  p_events jsonb
)
returns void
language sql volatile security definer
set search_path = public, pg_temp
as $$
  insert into public.mcp_events
    (user_id, caller, source, session_id, request_id, tool, input, output, success, error, duration_ms)
  select auth.uid(), public.chat_owner(p_caller), p_source, p_session_id, e.request_id, e.tool,
         e.input, e.output, e.success, e.error, e.duration_ms
  from jsonb_to_recordset(p_events) as e(
    request_id text, tool text, input jsonb, output jsonb,
    success boolean, error text, duration_ms double precision
  )
$$;

-- Stores one loop turn in one statement, so it is all there or none of it: the
-- user's message with its embedding, the assistant's reply, and the audit rows
-- ({tool, input, output, success, error, duration_ms, request_id} objects).
create or replace function public.save_chat_turn(
  p_session_id text,
  p_caller text,
  p_user_content text,
  p_embedding vector(1536),
  p_embedding_model text,
  p_assistant_content text default null,
  p_events jsonb default '[]'
)
returns uuid
language plpgsql volatile
set search_path = public, extensions, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_caller);
  message_id uuid;
begin
  insert into public.chat_messages (session_id, owner, role, content, embedding, embedding_model)
  values (p_session_id, owner_key, 'user', p_user_content, p_embedding, p_embedding_model)
  returning id into message_id;
  if p_assistant_content is not null then
    insert into public.chat_messages (session_id, owner, role, content)
    values (p_session_id, owner_key, 'assistant', p_assistant_content);
  end if;
  perform public.record_mcp_events(p_caller, 'loop', p_session_id, p_events);
  return message_id;
end
$$;

revoke execute on function public.match_chat_messages(vector, integer, double precision, text, text, uuid, uuid[], text)
  from public, anon;
revoke execute on function public.chat_owner(text) from public, anon;
revoke execute on function public.load_chat_context(text, text, vector, text, integer, integer, double precision, text)
  from public, anon;
revoke execute on function public.record_mcp_events(text, text, text, jsonb) from public, anon;
revoke execute on function public.save_chat_turn(text, text, text, vector, text, text, jsonb)
  from public, anon;
grant execute on function public.match_chat_messages(vector, integer, double precision, text, text, uuid, uuid[], text)
  to authenticated, service_role;
grant execute on function public.chat_owner(text) to authenticated, service_role;
grant execute on function public.load_chat_context(text, text, vector, text, integer, integer, double precision, text)
  to authenticated, service_role;
grant execute on function public.record_mcp_events(text, text, text, jsonb) to authenticated, service_role;
grant execute on function public.save_chat_turn(text, text, text, vector, text, text, jsonb)
  to authenticated, service_role;
