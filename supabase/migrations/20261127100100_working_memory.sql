-- Working memory: per owner, a small JSON document (facts, preferences, or the
-- fields of a configured schema) the planner reads every turn and the remember
-- and forget tools update. Writes are conditional on the version read, so two
-- concurrent updates cannot lose each other's changes (the loser reads again).

create table if not exists public.working_memory (
  owner text primary key,
  user_id uuid default auth.uid(),
  document jsonb not null default '{}'
    check (jsonb_typeof(document) = 'object' and octet_length(document::text) <= 32000),
  version integer not null default 1,
  updated_at timestamptz not null default clock_timestamp()
);

alter table public.working_memory enable row level security;
drop policy if exists working_memory_select_own on public.working_memory;
create policy working_memory_select_own on public.working_memory
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists working_memory_insert_own on public.working_memory;
create policy working_memory_insert_own on public.working_memory
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists working_memory_update_own on public.working_memory;
create policy working_memory_update_own on public.working_memory
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
drop policy if exists working_memory_delete_own on public.working_memory;
create policy working_memory_delete_own on public.working_memory
  for delete to authenticated using (user_id = (select auth.uid()));
grant select, insert, update, delete on public.working_memory to authenticated;
grant all on public.working_memory to service_role;

-- The caller's document and its version (0 and {} when there is none yet).
create or replace function public.get_working_memory(p_owner text)
returns table (document jsonb, version integer)
language sql stable
set search_path = public, pg_temp
as $$
  select coalesce(w.document, '{}'::jsonb), coalesce(w.version, 0)
  from (select 1) one
  left join public.working_memory w on w.owner = public.chat_owner(p_owner)
$$;

-- Replaces the caller's document if it is still at p_expected_version (0: none yet);
-- returns the new version, or null when someone else wrote first.
create or replace function public.put_working_memory(
  p_owner text,
  p_document jsonb,
  p_expected_version integer
)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_owner);
  written integer;
begin
  if p_expected_version = 0 then
    insert into public.working_memory (owner, document)
    values (owner_key, p_document)
    on conflict (owner) do nothing
    returning version into written;
  else
    update public.working_memory w
    set document = p_document, version = w.version + 1, updated_at = clock_timestamp()
    where w.owner = owner_key and w.version = p_expected_version
    returning w.version into written;
  end if;
  return written;
end
$$;

revoke execute on function public.get_working_memory(text) from public, anon;
revoke execute on function public.put_working_memory(text, jsonb, integer) from public, anon;
grant execute on function public.get_working_memory(text) to authenticated, service_role;
grant execute on function public.put_working_memory(text, jsonb, integer)
  to authenticated, service_role;
