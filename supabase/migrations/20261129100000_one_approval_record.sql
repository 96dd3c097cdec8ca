-- One approval record for the loop and MCP: a call a person is asked about is a row
-- here whichever surface made it. A loop call's row names its run and step; a declined
-- call may carry the person's reason (the planner sees it). Until now the loop kept its
-- approvals inside the run's checkpoint (checkpoint version 1); a run that was waiting
-- then gets its records when it is resumed (shared/runs/engine.ts).

alter table public.mcp_tool_approvals add column if not exists run_id uuid;
alter table public.mcp_tool_approvals add column if not exists step integer;
alter table public.mcp_tool_approvals add column if not exists reason text
  check (reason is null or char_length(reason) <= 2000);
create index if not exists mcp_tool_approvals_run_idx
  on public.mcp_tool_approvals (run_id) where run_id is not null;

-- An answer changes its status, when it was given and why (never the call or its owner).
revoke update on public.mcp_tool_approvals from anon, authenticated;
grant update (status, decided_at, reason) on public.mcp_tool_approvals to authenticated;
