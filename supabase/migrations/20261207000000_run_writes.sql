-- A run's writes as functions, so their plans are kept.
--
-- Every loop request creates its run and writes it again when it stops. Sent as
-- statements, both were parsed and planned on every call wherever the driver does not
-- keep prepared statements (PGlite): the final write's plan alone took about 0.8 ms, a
-- third of it. PL/pgSQL keeps a statement's plan for the connection. The statements are
-- the ones shared/store/sql_run_store.ts sent: the same conditions, the same row level
-- security (invoker's rights, as before), one statement each, so a lost race still writes
-- nothing. The owner is chat_owner's, as in every function PostgREST exposes: a signed-in
-- user's own, whatever the call names.

create or replace function public.create_mcp_run(
  p_owner text,
  p_session_id text,
  p_request jsonb,
  p_checkpoint jsonb,
  p_event_seq integer,
  p_lease_ms double precision
)
returns table (
  id uuid,
  session_id text,
  status text,
  stop_reason text,
  request jsonb,
  base jsonb,
  embedding text,
  embedding_model text,
  checkpoint jsonb,
  version integer,
  event_seq integer,
  cancel_requested boolean,
  lease_until timestamptz,
  error jsonb,
  created_at timestamptz,
  updated_at timestamptz
)
language plpgsql volatile
set search_path = public, extensions, pg_temp
as $$
#variable_conflict use_column
begin
  return query
    insert into public.mcp_runs as r
      (owner, session_id, status, request, checkpoint, event_seq, lease_until)
    values (public.chat_owner(p_owner), p_session_id, 'running', p_request, p_checkpoint,
            p_event_seq, clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0))
    returning r.id, r.session_id, r.status, r.stop_reason, r.request, r.base, r.embedding::text,
              r.embedding_model, r.checkpoint, r.version, r.event_seq, r.cancel_requested,
              r.lease_until, r.error, r.created_at, r.updated_at;
end
$$;

-- The run's change, if its version and status are still the ones its writer read, and the
-- new events numbered after the ones it has; no row when another writer got there first.
create or replace function public.save_mcp_run(
  p_id uuid,
  p_owner text,
  p_version integer,
  p_from text[],
  p_status text,
  p_checkpoint jsonb,
  p_event_count integer,
  p_stop_reason text,
  p_error jsonb,
  p_base jsonb,
  p_embedding vector(1536),
  p_embedding_model text,
  p_lease_ms double precision,
  p_events jsonb
)
returns table (version integer, event_seq integer, cancel_requested boolean)
language plpgsql volatile
set search_path = public, extensions, pg_temp
as $$
#variable_conflict use_column
begin
  return query
    with run as (
      update public.mcp_runs set
        status = p_status, checkpoint = p_checkpoint, version = version + 1,
        event_seq = event_seq + p_event_count,
        stop_reason = p_stop_reason,
        error = p_error,
        base = coalesce(p_base, base),
        embedding = coalesce(p_embedding, embedding),
        embedding_model = coalesce(p_embedding_model, embedding_model),
        lease_until = case when p_lease_ms is null then null
          else clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0) end,
        updated_at = clock_timestamp()
      where id = p_id and owner = public.chat_owner(p_owner) and version = p_version
        and status = any (p_from)
      returning id, version, event_seq, cancel_requested
    ), written as (
      insert into public.mcp_run_events (run_id, seq, type, data)
      select run.id, run.event_seq - p_event_count + e.ordinality::int, e.value ->> 'type',
             e.value -> 'data'
      from run, jsonb_array_elements(p_events) with ordinality as e
    )
    select run.version, run.event_seq, run.cancel_requested from run;
end
$$;

revoke execute on function public.create_mcp_run(text, text, jsonb, jsonb, integer, double precision)
  from public, anon;
grant execute on function public.create_mcp_run(text, text, jsonb, jsonb, integer, double precision)
  to authenticated, service_role;
revoke execute on function public.save_mcp_run(
  uuid, text, integer, text[], text, jsonb, integer, text, jsonb, jsonb, vector, text,
  double precision, jsonb
) from public, anon;
grant execute on function public.save_mcp_run(
  uuid, text, integer, text[], text, jsonb, integer, text, jsonb, jsonb, vector, text,
  double precision, jsonb
) to authenticated, service_role;
