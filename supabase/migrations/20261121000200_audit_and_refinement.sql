-- The audit trail of tool calls (from the loop and over MCP) and the persisted
-- state of refinement loops.

create table if not exists public.mcp_events (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default clock_timestamp(),
  user_id uuid default auth.uid(),
  caller text not null,
  source text not null check (source in ('loop', 'mcp')),
  session_id text,
  request_id text,
  tool text not null,
  input jsonb,
  output jsonb,
  success boolean not null,
  error text,
  duration_ms double precision not null
);
create index if not exists mcp_events_session_idx on public.mcp_events (session_id, created_at);
create index if not exists mcp_events_caller_idx on public.mcp_events (caller, created_at desc);

-- Users read their own audit rows; rows are written only through the SQL functions
-- (save_chat_turn, record_mcp_events), which set the writer's identity themselves.
alter table public.mcp_events enable row level security;
drop policy if exists mcp_events_select_own on public.mcp_events;
create policy mcp_events_select_own on public.mcp_events
  for select to authenticated using (user_id = (select auth.uid()));
revoke insert, update, delete on public.mcp_events from anon, authenticated;
grant select on public.mcp_events to authenticated;
grant all on public.mcp_events to service_role;

create table if not exists public.refinement_loops (
  id text primary key check (id ~ '^[0-9a-f]{8}$'),
  -- Creation order (timestamps can tie).
  seq bigint generated always as identity,
  owner text not null,
  user_id uuid default auth.uid(),
  loop_type text not null check (loop_type in ('plan', 'spec', 'build_plan', 'build_code')),
  status text not null
    check (status in ('initialized', 'in_progress', 'refine', 'completed', 'user_input')),
  current_score integer check (current_score between 0 and 100),
  score_history integer[] not null default '{}',
  iteration integer not null default 0 check (iteration >= 0),
  threshold integer not null check (threshold between 1 and 100),
  max_iterations integer not null check (max_iterations between 1 and 20),
  version integer not null default 0,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index if not exists refinement_loops_owner_seq_idx
  on public.refinement_loops (owner, seq desc);

alter table public.refinement_loops enable row level security;
drop policy if exists refinement_loops_select_own on public.refinement_loops;
create policy refinement_loops_select_own on public.refinement_loops
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists refinement_loops_insert_own on public.refinement_loops;
create policy refinement_loops_insert_own on public.refinement_loops
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists refinement_loops_update_own on public.refinement_loops;
create policy refinement_loops_update_own on public.refinement_loops
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
grant select, insert, update on public.refinement_loops to authenticated;
grant all on public.refinement_loops to service_role;
