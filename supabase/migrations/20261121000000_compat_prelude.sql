-- Compatibility prelude: what a Supabase project already has, created only where
-- it is missing, so the same migrations run on Supabase, plain Postgres and PGlite.

-- pgvector (Supabase keeps extensions in the "extensions" schema).
do $$
begin
  if not exists (select 1 from pg_extension where extname = 'vector') then
    if exists (select 1 from pg_namespace where nspname = 'extensions') then
      create extension vector with schema extensions;
    else
      create extension vector;
    end if;
  end if;
end
$$;

-- The API roles PostgREST switches to. service_role bypasses RLS, as on Supabase.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    begin
      create role service_role nologin noinherit bypassrls;
    exception when insufficient_privilege then
      -- Managed Postgres without superuser: service_role then goes through RLS too.
      create role service_role nologin noinherit;
    end;
  end if;
end
$$;

-- The app switches to "authenticated" for signed-in users (set role), so the role it
-- connects as must be a member (Supabase's postgres already is).
do $$
begin
  execute format('grant authenticated to %I', current_user);
exception when others then
  null;
end
$$;

-- auth.uid(): the "sub" claim of the verified JWT, read from request.jwt.claims
-- (set per transaction by PostgREST on Supabase, and by this project elsewhere).
do $$
begin
  if not exists (select 1 from pg_namespace where nspname = 'auth') then
    create schema auth;
  end if;
  if not exists (
    select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'auth' and p.proname = 'uid'
  ) then
    create function auth.uid() returns uuid
    language sql stable
    as $f$
      select coalesce(
        nullif(current_setting('request.jwt.claim.sub', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
      )::uuid
    $f$;
    grant usage on schema auth to anon, authenticated, service_role;
    grant execute on function auth.uid() to anon, authenticated, service_role;
  end if;
end
$$;
