-- Erasing everything also ends the caller's MCP sessions: what their client declared at
-- `initialize` (its name and capabilities) and the questions waiting in them (a call's
-- approval, with the tool's arguments in the question) were left to lapse, up to a day
-- later. An instance waiting for an answer then finds its question gone and stops
-- waiting, as when the session ends; the client's next request gets the 404 of an
-- ended session and may initialize again. The counts returned are unchanged.

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
  -- Their questions go with them (on delete cascade).
  delete from public.mcp_sessions s where s.owner = owner_key;
  summaries := public.forget_session_summaries(p_owner, null);
  audit_rows := public.scrub_mcp_events(p_owner, null);
  return next;
end
$$;
