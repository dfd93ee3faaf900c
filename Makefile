# Two commands do everything on a fresh clone: `make demo` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements/dev.txt | sha1sum | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: demo demo-live test venv lint typecheck pytest pytest-embedded bench bench-engine bench-brackets bench-hands bench-live bench-live-churn clean

venv: $(STAMP)

$(STAMP): requirements/dev.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes -r requirements/dev.txt
	@rm -f $(VENV)/.installed-*; touch $@

# Embedded default: SQLite, in-memory channel layer, Celery eager. No server but Python.
EMBEDDED := env -u DATABASE_URL -u REDIS_URL DJANGO_SETTINGS_MODULE=config.settings.local SITE_URL=http://$(HOST):$(PORT)

demo: venv
	$(EMBEDDED) $(PY) manage.py migrate --noinput
	$(EMBEDDED) $(PY) manage.py demo_load
	@echo "Serving on http://$(HOST):$(PORT)/ and spectators on http://$(HOST):$(PORT)/live/  (Ctrl-C to stop)"
	$(EMBEDDED) $(PY) manage.py runserver $(HOST):$(PORT)

# The demo with seeded bots playing a hand every 3 s in the server's own process (live pushes on
# the in-memory channel layer); see README "Simulating an event".
demo-live: venv
	$(EMBEDDED) $(PY) manage.py migrate --noinput
	$(EMBEDDED) $(PY) manage.py demo_load
	$(EMBEDDED) $(PY) manage.py simulate_event --delay 3 --serve $(HOST):$(PORT)

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

typecheck: venv
	$(VENV)/bin/mypy .

# Two pytest-xdist workers by default (the CI machine has 2 cores). Each test file is one unit
# of work (--dist loadfile): its module fixtures (a live server, a browser, the deployment
# stack of tests/deploy/test_smoke.py on its fixed ports) are set up once, on one worker. Each
# worker has its own test database (pytest-django) and Redis database (config/settings/test.py).
# PYTEST_WORKERS=0 runs in one process, as a single file or a debugger wants.
PYTEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(PYTEST_WORKERS)),-n 0,-n $(PYTEST_WORKERS) --dist loadfile)

pytest: venv
	DJANGO_SETTINGS_MODULE=config.settings.test $(VENV)/bin/pytest $(XDIST) $(PYTEST_ARGS)

# The page, API and flow tests again on the embedded default (SQLite, in-memory channel layer,
# local-memory cache, eager Celery): what `make demo` runs on, and the whole-event browser test
# (marked `embedded`). A few minutes.
EMBEDDED_TESTS ?= tests/pages tests/live tests/brackets/test_director_pages.py \
	tests/brackets/test_time_called_at_the_table.py tests/brackets/test_playoff_still_level.py \
	tests/brackets/test_brackets_api.py tests/brackets/test_pairs_api.py tests/scoring/test_scoring_api.py \
	tests/api/test_api_regressions.py tests/api/test_api_versions.py tests/core/test_login.py tests/core/test_warmup.py \
	tests/core/test_health.py tests/core/test_values_rows.py tests/core/test_json_params.py tests/brackets/test_simulate_event.py tests/ratings tests/circuits \
	tests/notify tests/archive tests/brackets/test_player_add.py tests/brackets/test_round_page_links.py \
	tests/brackets/test_pairs_register_form.py tests/brackets/test_registration_services.py \
	tests/brackets/test_tournament_form_words.py tests/brackets/test_form_errors_name_rules.py \
	tests/scoring/test_confirmation.py tests/browser/test_full_event.py \
	tests/security/test_referee_key_shape.py tests/security/test_session_lifetime.py \
	tests/security/test_private_responses.py \
	tests/browser/test_referee_offline.py tests/browser/test_referee_my_matches_waiting.py tests/browser/test_referee_follows_match.py tests/browser/test_referee_confirmed_then_undone.py tests/browser/test_every_hand_disputed_result.py \
	tests/browser/test_referee_refused_hand.py \
	tests/scoring/test_tables_at_once.py \
	tests/tournament/test_referee_names.py \
	tests/tournament/test_entries_check_in.py \
	tests/brackets/test_import_namesakes.py \
	tests/tournament/test_player_fields_one_rule.py tests/pages/test_director_form_refusals.py \
	tests/brackets/test_tournament_slugs.py \
	tests/brackets/test_sheets_qr.py tests/brackets/test_dashboard_pushed.py \
	tests/brackets/test_director_number_fields.py \
	tests/brackets/test_override_guards.py tests/scoring/test_dispute_queue_scope.py \
	tests/scoring/test_stale_hand_after_finish.py tests/brackets/test_action_log_details.py \
	tests/brackets/test_pairs_place_everywhere.py \
	tests/brackets/test_final_ends_event.py tests/brackets/test_pairs_seeding_page.py \
	tests/brackets/test_pairs_registered_order.py tests/brackets/test_sheet_links_retire.py \
	tests/brackets/test_continuation_sheets_links.py \
	tests/security/test_hidden_players.py tests/brackets/test_namesake_notices.py \
	tests/brackets/test_action_log_keys.py tests/tournament/test_director_removal.py \
	tests/security/test_staff_flag.py tests/brackets/test_tournament_form_all_errors.py \
	tests/brackets/test_match_action_read_only.py tests/browser/test_director_forms_say_it_all.py \
	tests/brackets/test_withdrawn_places_everywhere.py tests/brackets/test_players_page_rating.py \
	tests/browser/test_call_time_once.py tests/core/test_client_error_logs.py \
	tests/browser/test_profile_rated_counts.py \
	tests/browser/test_referee_match_over_entry.py tests/browser/test_referee_counts_question.py \
	tests/tournament/test_tournament_api_all_errors.py tests/tournament/test_tournament_slug_entry_points.py \
	tests/tournament/test_admin_last_director.py tests/brackets/test_director_walkthrough_steps.py \
	tests/browser/test_director_walkthrough_steps.py \
	tests/browser/test_forfeit_pages.py tests/tournament/test_tournament_api_version.py \
	tests/browser/test_shown_once_reload.py tests/brackets/test_pin_pages.py \
	tests/brackets/test_preview_seating_note.py tests/tournament/test_admin_ruleset_refusals.py \
	tests/brackets/test_pairs_bye_warnings.py \
	tests/brackets/test_round_page_disputes.py tests/browser/test_round_disputed_table.py \
	tests/brackets/test_brackets_services.py tests/browser/test_lifecycle_finish_confirm.py \
	tests/brackets/test_seeding_page_forms.py tests/browser/test_seeding_row_actions.py
pytest-embedded: venv
	env -u DATABASE_URL -u REDIS_URL TEST_DATABASE=sqlite DJANGO_SETTINGS_MODULE=config.settings.test \
		$(VENV)/bin/pytest -p no:cacheprovider $(XDIST) $(EMBEDDED_TESTS) $(PYTEST_ARGS)

# The whole gate, in CI order (STYLE.md §12). Tests need PostgreSQL and Redis (the embedded
# run needs neither).
test: lint typecheck pytest pytest-embedded

bench: bench-engine bench-brackets

bench-engine: venv
	$(PY) bench/bench_engine_fold.py
	$(PY) bench/bench_engine_play.py

bench-brackets: venv
	$(PY) bench/bench_brackets.py
	$(PY) bench/bench_pairs.py

# Publishing a 1,000-player round, and the next round after the last match ends (real Celery
# worker); creates and uses its own database `bench_rounds` and Redis database 12.
.PHONY: bench-rounds
bench-rounds: venv
	$(PY) bench/bench_rounds.py $(BENCH_ARGS)

# 50 referee clients against gunicorn + uvicorn workers (production settings) on PostgreSQL and
# Redis; creates and uses its own database `bench_hands`. Options: BENCH_ARGS="--workers 4".
bench-hands: venv
	$(PY) bench/bench_hands.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles

# Spectators at scale (loopback, about 4 minutes): 2,000 websockets on one ASGI process, fan-out
# p99 after commit, 90 s of reconnect churn with no lost event, standings 304/s and cached
# 200/s on ASGI and WSGI workers. Needs PostgreSQL and Redis; creates and uses its own database
# `bench_live` and Redis database 11. Options: BENCH_ARGS="--churn-seconds 60 --trials 5".
bench-live: venv
	$(PY) bench/bench_live_fanout.py $(BENCH_ARGS)

bench-live-churn: venv
	$(PY) bench/bench_live.py $(BENCH_ARGS)

# Every benchmark above (engine, brackets, hands, live, standings, players) in a quick mode, one
# table with floors, ratios, goals, pass/fail and the load average, also written to
# bench/RESULTS.md. Options: BENCH_ARGS="--full" or "--only engine,standings".
# Anonymous standings through nginx's proxy cache (deploy/nginx) vs straight to Django, same
# run; needs nginx. Own database `bench_nginx`, Redis database 14.
.PHONY: bench-nginx
bench-nginx: venv
	$(PY) bench/bench_nginx_cache.py $(BENCH_ARGS)

.PHONY: bench-all
bench-all: venv
	$(PY) bench/bench_all.py $(BENCH_ARGS)

# Ratings of a finished 1,000-player round and the profile page of a player with 500 rated
# matches, each against a floor measured in the same run. Creates and uses its own database
# `bench_players`.
.PHONY: bench-players
bench-players: venv
	$(PY) bench/bench_players.py $(BENCH_ARGS)
