-- Per-caller counts of callers who have gone: each take now also removes a few
-- lapsed minutes of anyone (at most 20, skipping rows another request holds),
-- so the table holds about the callers of the last two minutes, not every
-- caller there ever was. The index finds lapsed minutes without a scan.

create index if not exists caller_quota_window_idx on public.caller_quota (window_start);

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
  where (owner, window_start) in (
    select l.owner, l.window_start from public.caller_quota l
    where l.window_start < this_minute - interval '2 minutes'
    order by l.window_start
    limit 20
    for update skip locked
  );
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
