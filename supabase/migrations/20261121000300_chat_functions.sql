-- The SQL functions the conversation store calls, so direct SQL callers and
-- supabase-js RPC callers (under RLS, with the caller's JWT) share one code path.

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
  exclude_ids uuid[] default '{}'
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

-- Everything the loop's context stage reads, in one round trip: the session's
-- recent messages (kind 'recent') and the semantic matches outside that window
-- (kind 'match'). Rows are the caller's own: auth.uid() is the verified user, or
-- null for anonymous callers, whose rows have no user.
create or replace function public.load_chat_context(
  p_session_id text,
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
as $$
#variable_conflict use_column
declare
  caller_id uuid := auth.uid();
  recent_ids uuid[];
begin
  select coalesce(array_agg(r.id), '{}') into recent_ids
  from (
    select m.id from public.chat_messages m
    where m.session_id = p_session_id and m.user_id is not distinct from caller_id
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
    -- The session's own rows (anonymous callers see only rows without a user),
    -- scanned exactly: sessions are small and exact search has perfect recall.
    return query
      with candidates as materialized (
        select m.id, m.session_id, m.role, m.content, m.created_at,
               m.embedding <=> p_query_embedding as distance
        from public.chat_messages m
        where m.session_id = p_session_id
          and m.user_id is not distinct from caller_id
          and m.embedding_model = p_embedding_model
          and m.id <> all (recent_ids)
      )
      select 'match'::text, c.id, c.session_id, c.role, c.content, c.created_at, 1 - c.distance
      from candidates c
      where 1 - c.distance >= p_match_threshold
      order by c.distance
      limit p_match_count;
  end if;
end
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
as $$
declare
  message_id uuid;
begin
  insert into public.chat_messages (session_id, role, content, embedding, embedding_model)
  values (p_session_id, 'user', p_user_content, p_embedding, p_embedding_model)
  returning id into message_id;
  if p_assistant_content is not null then
    insert into public.chat_messages (session_id, role, content)
    values (p_session_id, 'assistant', p_assistant_content);
  end if;
  insert into public.mcp_events
    (caller, source, session_id, request_id, tool, input, output, success, error, duration_ms)
  select p_caller, 'loop', p_session_id, e.request_id, e.tool, e.input, e.output,
         e.success, e.error, e.duration_ms
  from jsonb_to_recordset(p_events) as e(
    request_id text, tool text, input jsonb, output jsonb,
    success boolean, error text, duration_ms double precision
  );
  return message_id;
end
$$;

revoke execute on function public.match_chat_messages(vector, integer, double precision, text, text, uuid, uuid[])
  from public, anon;
revoke execute on function public.load_chat_context(text, vector, text, integer, integer, double precision, text)
  from public, anon;
revoke execute on function public.save_chat_turn(text, text, text, vector, text, text, jsonb)
  from public, anon;
grant execute on function public.match_chat_messages(vector, integer, double precision, text, text, uuid, uuid[])
  to authenticated, service_role;
grant execute on function public.load_chat_context(text, vector, text, integer, integer, double precision, text)
  to authenticated, service_role;
grant execute on function public.save_chat_turn(text, text, text, vector, text, text, jsonb)
  to authenticated, service_role;
