-- Forgetting and export, each only for the caller (a signed-in user's own rows
-- whatever owner is passed, and under row level security, as every function here
-- runs as its caller — except the audit scrub, because nobody may change audit
-- rows directly).
--
-- Deleting a session removes its messages (and with them their vectors), its runs
-- (their events cascade) and its summary; deleting everything of a caller also
-- removes their refinement loops and working memory. Audit rows stay, as the
-- record that a tool ran, but keep no content: their input, output and error are
-- cleared. An erasure leaves a marker (the session's md5, not its name) so that a
-- run still going when its session was deleted cannot store its turn afterwards;
-- markers older than a day are removed (no run lives that long).

create table if not exists public.chat_erasures (
  owner text not null,
  user_id uuid default auth.uid(),
  -- md5 of the session id, or '*' for every session of the owner.
  session_key text not null,
  erased_at timestamptz not null default clock_timestamp(),
  primary key (owner, session_key)
);
alter table public.chat_erasures enable row level security;
drop policy if exists chat_erasures_own on public.chat_erasures;
create policy chat_erasures_own on public.chat_erasures
  for all to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
grant select, insert, update, delete on public.chat_erasures to authenticated;
grant all on public.chat_erasures to service_role;

-- A signed-in user may delete their own runs and refinement loops.
drop policy if exists mcp_runs_delete_own on public.mcp_runs;
create policy mcp_runs_delete_own on public.mcp_runs
  for delete to authenticated using (user_id = (select auth.uid()));
grant delete on public.mcp_runs to authenticated;
drop policy if exists refinement_loops_delete_own on public.refinement_loops;
create policy refinement_loops_delete_own on public.refinement_loops
  for delete to authenticated using (user_id = (select auth.uid()));
grant delete on public.refinement_loops to authenticated;

-- Clears the content of the caller's audit rows (one session's, or all of them).
create or replace function public.scrub_mcp_events(p_owner text, p_session_id text default null)
returns integer
language plpgsql volatile security definer
set search_path = public, pg_temp
as $$
declare
  scrubbed integer;
begin
  update public.mcp_events e
  set input = null, output = null, error = null
  where e.caller = public.chat_owner(p_owner)
    and (p_session_id is null or e.session_id = p_session_id)
    and (e.input is not null or e.output is not null or e.error is not null);
  get diagnostics scrubbed = row_count;
  return scrubbed;
end
$$;

-- The hook for session summaries (compaction): deletes the caller's rows of
-- public.session_summaries (one session's, or all) when that table exists with
-- owner and session_id columns. A migration that brings summaries another shape
-- replaces this function.
create or replace function public.forget_session_summaries(
  p_owner text,
  p_session_id text default null
)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
  deleted integer := 0;
begin
  if to_regclass('public.session_summaries') is not null and (
    select count(*) from information_schema.columns c
    where c.table_schema = 'public' and c.table_name = 'session_summaries'
      and c.column_name in ('owner', 'session_id')
  ) = 2 then
    execute 'delete from public.session_summaries where owner = $1 and ($2::text is null or session_id = $2)'
      using public.chat_owner(p_owner), p_session_id;
    get diagnostics deleted = row_count;
  end if;
  return deleted;
end
$$;

-- Records an erasure (see above) and drops markers older than a day.
create or replace function public.mark_chat_erasure(p_owner text, p_session_key text)
returns void
language sql volatile
set search_path = public, pg_temp
as $$
  delete from public.chat_erasures e
  where e.owner = public.chat_owner(p_owner) and e.erased_at < clock_timestamp() - interval '1 day';
  insert into public.chat_erasures (owner, session_key)
  values (public.chat_owner(p_owner), p_session_key)
  on conflict (owner, session_key) do update set erased_at = excluded.erased_at;
$$;

-- Deletes one of the caller's sessions. With p_keep_running, runs still running
-- stay (the forget_session tool's own run among them, which stores its turn after).
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
  delete from public.chat_messages m where m.owner = owner_key and m.session_id = p_session_id;
  get diagnostics messages = row_count;
  delete from public.mcp_runs r
  where r.owner = owner_key and r.session_id = p_session_id
    and not (p_keep_running and r.status = 'running');
  get diagnostics runs = row_count;
  summaries := public.forget_session_summaries(p_owner, p_session_id);
  audit_rows := public.scrub_mcp_events(p_owner, p_session_id);
  if messages + runs + summaries + audit_rows > 0 then
    perform public.mark_chat_erasure(p_owner, md5(p_session_id));
  end if;
  return next;
end
$$;

-- Deletes everything of the caller: messages, runs, refinement loops, working
-- memory and session summaries; audit rows keep no content.
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
  perform public.mark_chat_erasure(p_owner, '*');
  return next;
end
$$;

-- Everything of the caller as one JSON document: messages (without vectors),
-- working memory, refinement loops, runs (their requests, not checkpoints) and
-- the audit rows of their tool calls.
create or replace function public.export_chat_caller(p_owner text)
returns jsonb
language sql stable
set search_path = public, pg_temp
as $$
  with me as (select public.chat_owner(p_owner) as owner_key)
  select jsonb_build_object(
    'owner', me.owner_key,
    'exportedAt', clock_timestamp(),
    'messages', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', m.id, 'sessionId', m.session_id, 'role', m.role, 'content', m.content,
        'createdAt', m.created_at, 'embeddingModel', m.embedding_model, 'runId', m.run_id
      ) order by m.seq)
      from public.chat_messages m where m.owner = me.owner_key
    ), '[]'),
    'workingMemory', (
      select w.document from public.working_memory w where w.owner = me.owner_key
    ),
    'loops', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', l.id, 'loopType', l.loop_type, 'status', l.status,
        'currentScore', l.current_score, 'scoreHistory', l.score_history,
        'iteration', l.iteration, 'threshold', l.threshold,
        'maxIterations', l.max_iterations, 'createdAt', l.created_at, 'updatedAt', l.updated_at
      ) order by l.seq)
      from public.refinement_loops l where l.owner = me.owner_key
    ), '[]'),
    'runs', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', r.id, 'sessionId', r.session_id, 'status', r.status,
        'stopReason', r.stop_reason, 'request', r.request, 'error', r.error,
        'createdAt', r.created_at, 'updatedAt', r.updated_at
      ) order by r.seq)
      from public.mcp_runs r where r.owner = me.owner_key
    ), '[]'),
    'toolCalls', coalesce((
      select jsonb_agg(jsonb_build_object(
        'source', e.source, 'sessionId', e.session_id, 'tool', e.tool, 'input', e.input,
        'output', e.output, 'success', e.success, 'error', e.error,
        'durationMs', e.duration_ms, 'createdAt', e.created_at
      ) order by e.id)
      from public.mcp_events e where e.caller = me.owner_key
    ), '[]')
  )
  from me
$$;

revoke execute on function public.scrub_mcp_events(text, text) from public, anon;
revoke execute on function public.forget_session_summaries(text, text) from public, anon;
revoke execute on function public.mark_chat_erasure(text, text) from public, anon;
revoke execute on function public.delete_chat_session(text, text, boolean) from public, anon;
revoke execute on function public.forget_chat_caller(text) from public, anon;
revoke execute on function public.export_chat_caller(text) from public, anon;
grant execute on function public.scrub_mcp_events(text, text) to authenticated, service_role;
grant execute on function public.forget_session_summaries(text, text)
  to authenticated, service_role;
grant execute on function public.mark_chat_erasure(text, text) to authenticated, service_role;
grant execute on function public.delete_chat_session(text, text, boolean)
  to authenticated, service_role;
grant execute on function public.forget_chat_caller(text) to authenticated, service_role;
grant execute on function public.export_chat_caller(text) to authenticated, service_role;
