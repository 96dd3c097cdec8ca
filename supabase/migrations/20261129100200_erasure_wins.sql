-- Deletion wins over work in flight. Erasing a scope (one session of an owner, or
-- everything of an owner: '*') marks it erased first, under an exclusive lock on the
-- scope; every writer of that scope's content takes the same lock shared and checks, in
-- the same statement, what the erasure left:
-- - a turn: a run's turn is not stored once its run went with the erasure (save_chat_turn
--   did this already; it now waits for an erasure in progress rather than racing it);
-- - a run's audit rows: rows of a run that went with an erasure are not written (the
--   erasure promised that audit rows keep no content; a row written after it would);
-- - a compaction summary: not stored once the messages it covers are gone;
-- - a background continuation: its run is gone, so it cannot claim it (no change here).
-- The lock is a transaction-level advisory lock keyed by the owner and the scope, so a
-- writer either finishes before the erasure (which then removes what it wrote) or waits
-- for it and sees what it left.

-- The lock of an owner's scope is keyed hashtextextended(owner || '|' || scope, 20261129),
-- the scope being the md5 of a session id or '*'; the expressions are written out in each
-- function (pg_advisory_* are not exposed through PostgREST, and neither is a helper).

create or replace function public.delete_chat_session(
  p_session_id text,
  p_owner text,
  p_keep_running boolean default false
)
returns table (messages integer, runs integer, summaries integer, audit_rows integer)
language plpgsql volatile
set search_path = public, pg_temp
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
begin
  perform pg_advisory_xact_lock(hashtextextended(owner_key || '|' || md5(p_session_id), 20261129));
  perform public.mark_chat_erasure(p_owner, md5(p_session_id));
  delete from public.chat_messages m where m.owner = owner_key and m.session_id = p_session_id;
  get diagnostics messages = row_count;
  delete from public.mcp_runs r
  where r.owner = owner_key and r.session_id = p_session_id
    and not (p_keep_running and r.status = 'running');
  get diagnostics runs = row_count;
  summaries := public.forget_session_summaries(p_owner, p_session_id);
  audit_rows := public.scrub_mcp_events(p_owner, p_session_id);
  return next;
end
$$;

create or replace function public.forget_chat_caller(p_owner text)
returns table (
  messages integer, runs integer, loops integer, memory integer, summaries integer,
  audit_rows integer
)
language plpgsql volatile
set search_path = public, pg_temp
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
begin
  perform pg_advisory_xact_lock(hashtextextended(owner_key || '|' || '*', 20261129));
  perform public.mark_chat_erasure(p_owner, '*');
  delete from public.chat_messages m where m.owner = owner_key;
  get diagnostics messages = row_count;
  delete from public.mcp_runs r where r.owner = owner_key;
  get diagnostics runs = row_count;
  delete from public.refinement_loops l where l.owner = owner_key;
  get diagnostics loops = row_count;
  delete from public.working_memory w where w.owner = owner_key;
  get diagnostics memory = row_count;
  summaries := public.forget_session_summaries(p_owner, null);
  audit_rows := public.scrub_mcp_events(p_owner, null);
  return next;
end
$$;

create or replace function public.save_chat_turn(
  p_session_id text,
  p_caller text,
  p_user_content text,
  p_embedding vector(1536),
  p_embedding_model text,
  p_assistant_content text default null,
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
  perform pg_advisory_xact_lock_shared(hashtextextended(owner_key || '|' || '*', 20261129)),
          pg_advisory_xact_lock_shared(hashtextextended(owner_key || '|' || md5(coalesce(p_session_id, '')), 20261129));
  -- A run whose session (or caller) was erased while it ran stores nothing: its row
  -- went with the erasure, and a marker says so.
  if p_run_id is not null
    and not exists (select 1 from public.mcp_runs r where r.id = p_run_id)
    and exists (
      select 1 from public.chat_erasures e
      where e.owner = owner_key and e.session_key in (md5(coalesce(p_session_id, '')), '*')
    )
  then
    return null;
  end if;
  insert into public.chat_messages
    (session_id, owner, role, content, embedding, embedding_model, run_id, text_config)
  values (p_session_id, owner_key, 'user', p_user_content, p_embedding, p_embedding_model,
          p_run_id, p_text_config)
  on conflict (owner, run_id, role) where run_id is not null do nothing
  returning id into message_id;
  if message_id is null then
    return null; -- this run's turn is already stored
  end if;
  if p_assistant_content is not null then
    insert into public.chat_messages (session_id, owner, role, content, run_id, text_config)
    values (p_session_id, owner_key, 'assistant', p_assistant_content, p_run_id, p_text_config);
  end if;
  return message_id;
end
$$;

-- Audit rows, written by the server only (see 20261129000100). A row of a run (its
-- run_id) whose run went with an erasure of its session, or of everything, is not written.
create or replace function public.write_mcp_events(
  p_user_id uuid,
  p_caller text,
  p_source text,
  p_session_id text,
  p_events jsonb
)
returns void
language plpgsql volatile security definer
set search_path = public, pg_temp
as $$
begin
  if p_caller is null or (p_user_id is null) <> (p_caller not like 'user:%')
     or (p_user_id is not null and p_caller <> 'user:' || p_user_id::text) then
    raise exception 'audit rows of % must name that caller''s own user id', p_caller
      using errcode = '22023';
  end if;
  perform pg_advisory_xact_lock_shared(hashtextextended(p_caller || '|' || '*', 20261129)),
          pg_advisory_xact_lock_shared(hashtextextended(p_caller || '|' || md5(coalesce(p_session_id, '')), 20261129));
  insert into public.mcp_events
    (user_id, caller, source, session_id, request_id, tool, input, output, success, error, duration_ms)
  select p_user_id, p_caller, p_source, p_session_id, e.request_id, e.tool, e.input, e.output,
         e.success, e.error, e.duration_ms
  from jsonb_to_recordset(p_events) as e(
    request_id text, tool text, input jsonb, output jsonb,
    success boolean, error text, duration_ms double precision, run_id uuid
  )
  where e.run_id is null
     or exists (select 1 from public.mcp_runs r where r.id = e.run_id)
     or not exists (
      select 1 from public.chat_erasures e
      where e.owner = p_caller and e.session_key in (md5(coalesce(p_session_id, '')), '*')
    );
end
$$;
revoke all on function public.write_mcp_events(uuid, text, text, text, jsonb)
  from public, anon, authenticated;
grant execute on function public.write_mcp_events(uuid, text, text, text, jsonb) to service_role;

-- A summary is stored only while the messages it covers are there: a session erased
-- while it was being summarised keeps none.
create or replace function public.save_session_summary(
  p_session_id text,
  p_owner text,
  p_summary text,
  p_covered_seq bigint,
  p_covered_messages integer,
  p_expected_version integer
)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_owner);
  saved integer;
begin
  perform pg_advisory_xact_lock_shared(hashtextextended(owner_key || '|' || '*', 20261129)),
          pg_advisory_xact_lock_shared(hashtextextended(owner_key || '|' || md5(coalesce(p_session_id, '')), 20261129));
  if not exists (
    select 1 from public.chat_messages m
    where m.owner = owner_key and m.session_id = p_session_id and m.seq = p_covered_seq
  ) then
    return null;
  end if;
  if p_expected_version = 0 then
    insert into public.session_summaries
      (owner, session_id, summary, covered_seq, covered_messages)
    values (owner_key, p_session_id, p_summary, p_covered_seq, p_covered_messages)
    on conflict (owner, session_id) do nothing
    returning version into saved;
  else
    update public.session_summaries
    set summary = p_summary, covered_seq = p_covered_seq, covered_messages = p_covered_messages,
        version = version + 1, updated_at = clock_timestamp()
    where owner = owner_key and session_id = p_session_id and version = p_expected_version
    returning version into saved;
  end if;
  return saved;
end
$$;
