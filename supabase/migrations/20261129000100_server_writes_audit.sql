-- Audit rows are written by the server only. record_mcp_events was security definer
-- and granted to authenticated, and save_chat_turn (which PostgREST exposes to every
-- signed-in user) passed its p_events on to it, so a user could write a row saying
-- any tool ran on anything (under their own identity, but a forged record all the
-- same). Now:
-- - write_mcp_events takes the identity the server verified (the user id and the
--   owner key) and is executable by its owner and service_role only, never by anon
--   or authenticated: what PostgREST exposes cannot write an audit row.
-- - save_chat_turn stores the turn's messages only, still as the caller under row
--   level security. The server writes the turn's audit rows in the same statement
--   (shared/store/sql_conversation_store.ts), so a turn is still all or nothing.
-- - record_mcp_events is gone.
--
-- A run's turn is found by (owner, run_id, role), no longer by (run_id, role): a user
-- who learned another's run id could store a message under it first, and the other's
-- turn was then taken for already stored and never stored.

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
  insert into public.mcp_events
    (user_id, caller, source, session_id, request_id, tool, input, output, success, error, duration_ms)
  select p_user_id, p_caller, p_source, p_session_id, e.request_id, e.tool, e.input, e.output,
         e.success, e.error, e.duration_ms
  from jsonb_to_recordset(p_events) as e(
    request_id text, tool text, input jsonb, output jsonb,
    success boolean, error text, duration_ms double precision
  );
end
$$;
-- Supabase's default privileges grant every new function to anon and authenticated.
revoke all on function public.write_mcp_events(uuid, text, text, text, jsonb)
  from public, anon, authenticated;
grant execute on function public.write_mcp_events(uuid, text, text, text, jsonb) to service_role;

create unique index if not exists chat_messages_owner_run_role_idx
  on public.chat_messages (owner, run_id, role) where run_id is not null;
drop index if exists public.chat_messages_run_role_idx;

drop function if exists public.save_chat_turn(
  text, text, text, vector, text, text, jsonb, uuid, text
);
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
revoke execute on function public.save_chat_turn(text, text, text, vector, text, text, uuid, text)
  from public, anon;
grant execute on function public.save_chat_turn(text, text, text, vector, text, text, uuid, text)
  to authenticated, service_role;

drop function if exists public.record_mcp_events(text, text, text, jsonb);
