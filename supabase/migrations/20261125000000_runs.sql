-- Runs that outlive their request: every loop request is a row with its status,
-- a checkpoint (what a resume needs, written at step and round boundaries) and
-- an event log whose numbers are the Server-Sent Events ids. A run waiting for
-- a person's approval, or paused at its deadline, is resumed from its row.
-- Every change is conditional on the version the writer read, so two resumes
-- or two approvals cannot both win.

create table if not exists public.mcp_runs (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  owner text not null,
  user_id uuid default auth.uid(),
  session_id text not null check (char_length(session_id) between 1 and 200),
  status text not null
    check (status in ('running', 'waiting_approval', 'paused', 'completed', 'failed', 'cancelled')),
  stop_reason text,
  -- The validated request, and what never changes afterwards: the context the planner
  -- started from (no vector) and the latest message's embedding, for storing the turn.
  request jsonb not null,
  base jsonb,
  embedding vector(1536),
  embedding_model text,
  checkpoint jsonb not null,
  version integer not null default 1,
  event_seq integer not null default 0,
  cancel_requested boolean not null default false,
  -- A running run's process renews this; once it lapses the run may be resumed elsewhere.
  lease_until timestamptz,
  error jsonb,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index if not exists mcp_runs_owner_seq_idx on public.mcp_runs (owner, seq desc);

create table if not exists public.mcp_run_events (
  run_id uuid not null references public.mcp_runs (id) on delete cascade,
  seq integer not null,
  user_id uuid default auth.uid(),
  type text not null,
  data jsonb not null,
  created_at timestamptz not null default clock_timestamp(),
  primary key (run_id, seq)
);

alter table public.mcp_runs enable row level security;
drop policy if exists mcp_runs_select_own on public.mcp_runs;
create policy mcp_runs_select_own on public.mcp_runs
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists mcp_runs_insert_own on public.mcp_runs;
create policy mcp_runs_insert_own on public.mcp_runs
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists mcp_runs_update_own on public.mcp_runs;
create policy mcp_runs_update_own on public.mcp_runs
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
grant select, insert, update on public.mcp_runs to authenticated;
grant all on public.mcp_runs to service_role;

alter table public.mcp_run_events enable row level security;
drop policy if exists mcp_run_events_select_own on public.mcp_run_events;
create policy mcp_run_events_select_own on public.mcp_run_events
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists mcp_run_events_insert_own on public.mcp_run_events;
create policy mcp_run_events_insert_own on public.mcp_run_events
  for insert to authenticated
  with check (
    user_id = (select auth.uid())
    and exists (select 1 from public.mcp_runs r where r.id = run_id and r.user_id = (select auth.uid()))
  );
grant select, insert on public.mcp_run_events to authenticated;
grant all on public.mcp_run_events to service_role;

-- A turn stored by a run is stored once: a retried finish finds its messages there.
alter table public.chat_messages add column if not exists run_id uuid;
create unique index if not exists chat_messages_run_role_idx
  on public.chat_messages (run_id, role) where run_id is not null;

drop function if exists public.save_chat_turn(text, text, text, vector, text, text, jsonb);
create or replace function public.save_chat_turn(
  p_session_id text,
  p_caller text,
  p_user_content text,
  p_embedding vector(1536),
  p_embedding_model text,
  p_assistant_content text default null,
  p_events jsonb default '[]',
  p_run_id uuid default null
)
returns uuid
language plpgsql volatile
set search_path = public, extensions, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_caller);
  message_id uuid;
begin
  insert into public.chat_messages
    (session_id, owner, role, content, embedding, embedding_model, run_id)
  values (p_session_id, owner_key, 'user', p_user_content, p_embedding, p_embedding_model, p_run_id)
  on conflict (run_id, role) where run_id is not null do nothing
  returning id into message_id;
  if message_id is null then
    return null; -- this run's turn is already stored
  end if;
  if p_assistant_content is not null then
    insert into public.chat_messages (session_id, owner, role, content, run_id)
    values (p_session_id, owner_key, 'assistant', p_assistant_content, p_run_id);
  end if;
  perform public.record_mcp_events(p_caller, 'loop', p_session_id, p_events);
  return message_id;
end
$$;

revoke execute on function public.save_chat_turn(text, text, text, vector, text, text, jsonb, uuid)
  from public, anon;
grant execute on function public.save_chat_turn(text, text, text, vector, text, text, jsonb, uuid)
  to authenticated, service_role;
