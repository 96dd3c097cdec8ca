-- Retention of runs: a run and its events are removed once they were last written
-- before the retention's start (30 days unless the function is configured otherwise),
-- and so are approval records of that age. Each call removes at most p_limit runs,
-- oldest first, skipping rows another transaction holds: the function's processes
-- call it now and then, which keeps the tables bounded without a scheduler (on
-- Supabase, pg_cron can call it too). Only the server's own role runs it: it
-- removes anyone's runs.

create index if not exists mcp_runs_updated_idx on public.mcp_runs (updated_at);
create index if not exists mcp_tool_approvals_created_idx on public.mcp_tool_approvals (created_at);

create or replace function public.sweep_mcp_runs(p_before timestamptz, p_limit integer default 500)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
  removed integer;
begin
  with old as (
    select id from public.mcp_runs
    where updated_at < p_before
      and (status <> 'running' or lease_until is null or lease_until < p_before)
    order by updated_at
    limit greatest(p_limit, 0)
    for update skip locked
  )
  delete from public.mcp_runs r using old where r.id = old.id;
  get diagnostics removed = row_count;
  delete from public.mcp_tool_approvals a
  where a.id in (
    select id from public.mcp_tool_approvals
    where created_at < p_before
    order by created_at
    limit greatest(p_limit, 0)
    for update skip locked
  );
  return removed;
end
$$;

revoke execute on function public.sweep_mcp_runs(timestamptz, integer) from public, anon, authenticated;
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.sweep_mcp_runs(timestamptz, integer) to service_role;
  end if;
end
$$;
