-- MCP sessions of 2025-11-25 clients over HTTP that declare elicitation: what the client
-- declared at `initialize` (its capabilities, its name, the protocol version), kept so any
-- instance of the function can serve the session's next POST. A session lets the server
-- ask the client something while a call runs (an approval: `elicitation/create` on the
-- call's SSE stream); the client answers with a POST that may reach another instance.
-- That answer travels through mcp_session_requests: the instance that asked writes a row
-- `waiting`, the one that receives the answer fills it once (`answered`), and the asking
-- instance reads it and removes it. A client's `notifications/cancelled`, or the end of the
-- session, marks the row `cancelled`. Rows and sessions lapse; sweep_mcp_sessions removes
-- the lapsed ones (the function calls it now and then; only the server's role may).

create table if not exists public.mcp_sessions (
  -- The Mcp-Session-Id: 32 random bytes, base64url.
  id text primary key check (id ~ '^[A-Za-z0-9_-]{16,128}$'),
  owner text not null,
  user_id uuid default auth.uid(),
  protocol_version text not null check (char_length(protocol_version) between 1 and 32),
  client_capabilities jsonb not null default '{}'::jsonb,
  client_info jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null
);
create index if not exists mcp_sessions_expires_idx on public.mcp_sessions (expires_at);

create table if not exists public.mcp_session_requests (
  session_id text not null references public.mcp_sessions (id) on delete cascade,
  -- The JSON-RPC id the server gave its request (unique in the session).
  request_id text not null check (char_length(request_id) between 1 and 100),
  owner text not null,
  user_id uuid default auth.uid(),
  -- The client's request this one belongs to (its JSON-RPC id as JSON text), so the
  -- client's notifications/cancelled of that request reaches the instance that waits.
  related_id text check (related_id is null or char_length(related_id) <= 200),
  status text not null default 'waiting' check (status in ('waiting', 'answered', 'cancelled')),
  -- The client's JSON-RPC response, as it came (its result or its error).
  response jsonb,
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  answered_at timestamptz,
  primary key (session_id, request_id)
);
create index if not exists mcp_session_requests_related_idx
  on public.mcp_session_requests (session_id, related_id) where status = 'waiting';
create index if not exists mcp_session_requests_expires_idx
  on public.mcp_session_requests (expires_at);

alter table public.mcp_sessions enable row level security;
alter table public.mcp_session_requests enable row level security;

drop policy if exists mcp_sessions_select_own on public.mcp_sessions;
create policy mcp_sessions_select_own on public.mcp_sessions
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists mcp_sessions_insert_own on public.mcp_sessions;
create policy mcp_sessions_insert_own on public.mcp_sessions
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists mcp_sessions_update_own on public.mcp_sessions;
create policy mcp_sessions_update_own on public.mcp_sessions
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists mcp_sessions_delete_own on public.mcp_sessions;
create policy mcp_sessions_delete_own on public.mcp_sessions
  for delete to authenticated using (user_id = (select auth.uid()));

-- A request row belongs to one of the user's own sessions.
drop policy if exists mcp_session_requests_select_own on public.mcp_session_requests;
create policy mcp_session_requests_select_own on public.mcp_session_requests
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists mcp_session_requests_insert_own on public.mcp_session_requests;
create policy mcp_session_requests_insert_own on public.mcp_session_requests
  for insert to authenticated
  with check (
    user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text
    and exists (
      select 1 from public.mcp_sessions s
      where s.id = session_id and s.user_id = (select auth.uid())
    )
  );
drop policy if exists mcp_session_requests_update_own on public.mcp_session_requests;
create policy mcp_session_requests_update_own on public.mcp_session_requests
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists mcp_session_requests_delete_own on public.mcp_session_requests;
create policy mcp_session_requests_delete_own on public.mcp_session_requests
  for delete to authenticated using (user_id = (select auth.uid()));

-- A session's renewal changes its expiry only; a request's answer its status, response
-- and when it came (never the session, the request id or the owner).
revoke all on public.mcp_sessions from anon, authenticated;
grant select, insert, delete on public.mcp_sessions to authenticated;
grant update (expires_at) on public.mcp_sessions to authenticated;
grant all on public.mcp_sessions to service_role;
revoke all on public.mcp_session_requests from anon, authenticated;
grant select, insert, delete on public.mcp_session_requests to authenticated;
grant update (status, response, answered_at) on public.mcp_session_requests to authenticated;
grant all on public.mcp_session_requests to service_role;

-- Removes lapsed sessions (with their requests) and lapsed requests, at most p_limit of
-- each, oldest first, skipping rows another transaction holds.
create or replace function public.sweep_mcp_sessions(p_now timestamptz, p_limit integer default 200)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
  removed integer;
begin
  delete from public.mcp_session_requests r
  where (r.session_id, r.request_id) in (
    select session_id, request_id from public.mcp_session_requests
    where expires_at < p_now
    order by expires_at
    limit greatest(p_limit, 0)
    for update skip locked
  );
  delete from public.mcp_sessions s
  where s.id in (
    select id from public.mcp_sessions
    where expires_at < p_now
    order by expires_at
    limit greatest(p_limit, 0)
    for update skip locked
  );
  get diagnostics removed = row_count;
  return removed;
end
$$;

revoke execute on function public.sweep_mcp_sessions(timestamptz, integer) from public, anon, authenticated;
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.sweep_mcp_sessions(timestamptz, integer) to service_role;
  end if;
end
$$;
