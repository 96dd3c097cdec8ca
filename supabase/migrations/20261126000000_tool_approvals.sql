-- A person's approval of one MCP tool call (`tools/call` of a tool that needs approval):
-- written pending when the client is asked, and answered once. The answer is a
-- conditional update (`where status = 'pending'` and not lapsed, of exactly this
-- tool and these arguments), so a replayed retry, or two racing ones, run the tool
-- at most once. The loop's own approvals live in its runs (mcp_runs.checkpoint).

create table if not exists public.mcp_tool_approvals (
  id uuid primary key default gen_random_uuid(),
  owner text not null,
  user_id uuid default auth.uid(),
  tool text not null check (char_length(tool) between 1 and 200),
  -- SHA-256 of the call's parsed arguments as canonical JSON (base64url).
  args_digest text not null check (char_length(args_digest) between 1 and 100),
  status text not null default 'pending' check (status in ('pending', 'approved', 'declined')),
  expires_at timestamptz not null,
  created_at timestamptz not null default clock_timestamp(),
  decided_at timestamptz
);
create index if not exists mcp_tool_approvals_owner_idx
  on public.mcp_tool_approvals (owner, created_at desc);

alter table public.mcp_tool_approvals enable row level security;
drop policy if exists mcp_tool_approvals_select_own on public.mcp_tool_approvals;
create policy mcp_tool_approvals_select_own on public.mcp_tool_approvals
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists mcp_tool_approvals_insert_own on public.mcp_tool_approvals;
create policy mcp_tool_approvals_insert_own on public.mcp_tool_approvals
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists mcp_tool_approvals_update_own on public.mcp_tool_approvals;
create policy mcp_tool_approvals_update_own on public.mcp_tool_approvals
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
-- An answer changes only the status and when it was given (Supabase's default privileges
-- grant every table to anon and authenticated; they are taken back first).
revoke all on public.mcp_tool_approvals from anon, authenticated;
grant select, insert on public.mcp_tool_approvals to authenticated;
grant update (status, decided_at) on public.mcp_tool_approvals to authenticated;
grant all on public.mcp_tool_approvals to service_role;
