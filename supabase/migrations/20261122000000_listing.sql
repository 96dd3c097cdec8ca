-- Listing the caller's own conversations, for MCP resources and completions:
-- one session's messages, and the session ids that start with a prefix. Both
-- stay within the caller's owner key (a signed-in user's own, whatever the
-- caller passes) and run under RLS as the caller.

create or replace function public.list_chat_messages(
  p_session_id text,
  p_owner text,
  p_limit integer default 100
)
returns table (id uuid, session_id text, role text, content text, created_at timestamptz)
language sql stable
set search_path = public, pg_temp
as $$
  select r.id, r.session_id, r.role, r.content, r.created_at
  from (
    select m.id, m.session_id, m.role, m.content, m.created_at, m.seq
    from public.chat_messages m
    where m.owner = public.chat_owner(p_owner) and m.session_id = p_session_id
    order by m.seq desc
    limit greatest(0, least(p_limit, 1000))
  ) r
  order by r.seq
$$;

create or replace function public.list_chat_sessions(
  p_owner text,
  p_prefix text default '',
  p_limit integer default 100
)
returns table (session_id text)
language sql stable
set search_path = public, pg_temp
as $$
  select m.session_id
  from public.chat_messages m
  where m.owner = public.chat_owner(p_owner) and starts_with(m.session_id, coalesce(p_prefix, ''))
  group by m.session_id
  order by max(m.seq) desc
  limit greatest(0, least(p_limit, 1000))
$$;

revoke execute on function public.list_chat_messages(text, text, integer) from public, anon;
revoke execute on function public.list_chat_sessions(text, text, integer) from public, anon;
grant execute on function public.list_chat_messages(text, text, integer) to authenticated, service_role;
grant execute on function public.list_chat_sessions(text, text, integer) to authenticated, service_role;
