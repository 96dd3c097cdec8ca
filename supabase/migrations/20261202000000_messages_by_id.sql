-- A run keeps the messages its planner recalled by reference: mcp_runs.base names
-- them (id, role, session, time, rank) and their text stays here, in chat_messages.
-- A run that goes on (approved, resumed after a pause, continued in the background)
-- reads their text again through this function: only the caller's own messages
-- (a signed-in user's own, whatever the caller passes), under RLS as the caller, and
-- only those that still exist — a message erased while the run waited is not found.

create or replace function public.get_chat_messages(
  p_owner text,
  p_ids uuid[]
)
returns table (id uuid, session_id text, role text, content text, created_at timestamptz)
language sql stable
security invoker
set search_path = public, pg_temp
as $$
  select m.id, m.session_id, m.role, m.content, m.created_at
  from public.chat_messages m
  where m.owner = public.chat_owner(p_owner) and m.id = any (p_ids)
  order by m.seq
  limit 1000
$$;

revoke execute on function public.get_chat_messages(text, uuid[]) from public, anon;
grant execute on function public.get_chat_messages(text, uuid[]) to authenticated, service_role;
