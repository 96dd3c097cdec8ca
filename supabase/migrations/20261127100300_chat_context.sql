-- The loop's two calls, for hybrid retrieval and working memory:
-- load_chat_context reads the session's recent messages, the hybrid matches
-- outside them and the caller's working memory, still in one round trip;
-- save_chat_turn stores messages with their text search configuration, and not
-- at all for a run whose session was deleted while it ran.

drop function if exists public.load_chat_context(
  text, text, vector, text, integer, integer, double precision, text
);
create or replace function public.load_chat_context(
  p_session_id text,
  p_owner text,
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_recent_limit integer default 10,
  p_match_count integer default 5,
  p_match_threshold double precision default 0.3,
  p_scope text default 'session',
  p_query_text text default null,
  p_full_text_weight double precision default 1,
  p_semantic_weight double precision default 1,
  p_rrf_k integer default 60,
  p_text_config text default 'simple'
)
returns table (
  kind text,
  id uuid,
  session_id text,
  role text,
  content text,
  created_at timestamptz,
  similarity double precision,
  full_text_rank integer,
  vector_rank integer,
  score double precision
)
language plpgsql stable
set search_path = public, extensions, pg_temp
as $$
#variable_conflict use_column
declare
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
           null::double precision, null::integer, null::integer, null::double precision
    from public.chat_messages m
    where m.id = any (recent_ids)
    order by m.seq;
  -- All of the owner's sessions only for a verified user: an API key may serve many people.
  return query
    select 'match'::text, x.id, x.session_id, x.role, x.content, x.created_at, x.similarity,
           x.full_text_rank, x.vector_rank, x.score
    from public.hybrid_match_chat_messages(
      p_owner, p_query_text, p_query_embedding, p_embedding_model, p_match_count,
      p_match_threshold,
      case when p_scope = 'user' and auth.uid() is not null then null else p_session_id end,
      recent_ids, p_full_text_weight, p_semantic_weight, p_rrf_k, p_text_config
    ) x;
  return query
    select 'memory'::text, null::uuid, null::text, null::text, w.document::text,
           w.updated_at, null::double precision, null::integer, null::integer,
           null::double precision
    from public.working_memory w
    where w.owner = owner_key;
end
$$;

drop function if exists public.save_chat_turn(text, text, text, vector, text, text, jsonb, uuid);
create or replace function public.save_chat_turn(
  p_session_id text,
  p_caller text,
  p_user_content text,
  p_embedding vector(1536),
  p_embedding_model text,
  p_assistant_content text default null,
  p_events jsonb default '[]',
  p_run_id uuid default null,
  p_text_config text default 'simple'
)
returns uuid
language plpgsql volatile
set search_path = public, extensions, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_caller);
  message_id uuid;
begin
  -- A run whose session (or caller) was erased while it ran stores nothing: its row
  -- went with the erasure, and a marker says so.
  if p_run_id is not null
    and not exists (select 1 from public.mcp_runs r where r.id = p_run_id)
    and exists (
      select 1 from public.chat_erasures e
      where e.owner = owner_key and e.session_key in (md5(p_session_id), '*')
    )
  then
    return null;
  end if;
  insert into public.chat_messages
    (session_id, owner, role, content, embedding, embedding_model, run_id, text_config)
  values (p_session_id, owner_key, 'user', p_user_content, p_embedding, p_embedding_model,
          p_run_id, p_text_config)
  on conflict (run_id, role) where run_id is not null do nothing
  returning id into message_id;
  if message_id is null then
    return null; -- this run's turn is already stored
  end if;
  if p_assistant_content is not null then
    insert into public.chat_messages (session_id, owner, role, content, run_id, text_config)
    values (p_session_id, owner_key, 'assistant', p_assistant_content, p_run_id, p_text_config);
  end if;
  perform public.record_mcp_events(p_caller, 'loop', p_session_id, p_events);
  return message_id;
end
$$;

revoke execute on function public.load_chat_context(
  text, text, vector, text, integer, integer, double precision, text, text,
  double precision, double precision, integer, text
) from public, anon;
grant execute on function public.load_chat_context(
  text, text, vector, text, integer, integer, double precision, text, text,
  double precision, double precision, integer, text
) to authenticated, service_role;
revoke execute on function public.save_chat_turn(
  text, text, text, vector, text, text, jsonb, uuid, text
) from public, anon;
grant execute on function public.save_chat_turn(
  text, text, text, vector, text, text, jsonb, uuid, text
) to authenticated, service_role;
