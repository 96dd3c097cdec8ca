-- Per-caller request counts per minute, shared by every instance of the function
-- (the limits of shared/http/caller_limits.ts). Rows are written only through
-- take_caller_quota, which counts under the caller's own owner key (a signed-in
-- user's, whatever the caller passes) and keeps only the current minutes.

create table if not exists public.caller_quota (
  owner text not null,
  window_start timestamptz not null,
  requests integer not null default 0,
  bytes bigint not null default 0,
  primary key (owner, window_start)
);

alter table public.caller_quota enable row level security;
-- No policies: nobody reads or writes it directly; the function below does.
revoke all on public.caller_quota from anon, authenticated;
grant all on public.caller_quota to service_role;

-- Adds one request of p_bytes to the caller's current minute; answers the
-- seconds to wait when that minute is over either limit (0: admitted). A limit
-- of 0 is off.
create or replace function public.take_caller_quota(
  p_caller text,
  p_bytes bigint,
  p_max_requests integer,
  p_max_bytes bigint
)
returns integer
language plpgsql volatile security definer
set search_path = public, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_caller);
  this_minute timestamptz := date_trunc('minute', clock_timestamp());
  used record;
begin
  insert into public.caller_quota as q (owner, window_start, requests, bytes)
  values (owner_key, this_minute, 1, greatest(p_bytes, 0))
  on conflict (owner, window_start)
    do update set requests = q.requests + 1, bytes = q.bytes + greatest(p_bytes, 0)
  returning q.requests, q.bytes into used;
  delete from public.caller_quota
  where owner = owner_key and window_start < this_minute - interval '2 minutes';
  if (p_max_requests > 0 and used.requests > p_max_requests)
     or (p_max_bytes > 0 and used.bytes > p_max_bytes) then
    return greatest(1, ceil(extract(epoch from (this_minute + interval '1 minute' - clock_timestamp())))::integer);
  end if;
  return 0;
end
$$;

revoke execute on function public.take_caller_quota(text, bigint, integer, bigint) from public, anon;
grant execute on function public.take_caller_quota(text, bigint, integer, bigint)
  to authenticated, service_role;
