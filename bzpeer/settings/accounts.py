"""Settings of accounts, sign-in, two-factor authentication and ORCID (django-allauth), read by
base.py (which every environment's settings import). Values from the environment are read
through `env` (environment.py), as in base.py."""

from __future__ import annotations

from .environment import env

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Accounts: email addresses are the identity; verification is mandatory because a verified
# address at an institution's domain is one of the ways a claim gets corroborated.
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
# allauth's defaults plus tighter sign-up and login limits (per IP) against claim spam.
# Failed logins are counted per account and client address ("login_failed": the adapter's key is
# the account and the address, bzpeer.http.AccountAdapter), so one address guessing a password
# locks only itself out of that account, and per account alone with a higher ceiling
# ("login_failed_account"), reached only by guessing from many addresses at once. The owner of
# an account locked either way still signs in with a code sent to the verified address.
ACCOUNT_RATE_LIMITS = {
    "login_failed": "10/m/ip,5/5m/key",
    "login_failed_account": env.str("RATE_LIMIT_LOGIN_FAILED_ACCOUNT", default="30/15m/key"),
    "login": env.str("RATE_LIMIT_LOGIN", default="30/m/ip"),
    "signup": env.str("RATE_LIMIT_SIGNUP", default="5/m/ip,20/h/ip"),
}
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[bzpeer] "
# The adapter keys allauth's limits per "ip" on bzpeer.http.client_address (TRUSTED_PROXY_COUNT),
# so allauth's own ALLAUTH_TRUSTED_PROXY_COUNT is not used.
ACCOUNT_ADAPTER = "bzpeer.http.AccountAdapter"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
# Sign-in by a code sent to the verified address: it counts no failed password, so it works
# while the password sign-in is locked (its own limits: allauth's "request_login_code").
ACCOUNT_LOGIN_BY_CODE_ENABLED = True
# Changing the email address or the password asks for the password (or a 2FA code) again if the
# last confirmation is older than ACCOUNT_REAUTHENTICATION_TIMEOUT (allauth's 300 s); so do
# deleting the account, releasing a claim and turning 2FA off (their views).
ACCOUNT_REAUTHENTICATION_REQUIRED = True
# Two-factor authentication: optional for members, required of staff before the admin
# (bzpeer.middleware.StaffTwoFactorMiddleware).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "bzpeer"
# A code is good for its own 30-second step and the one before: a code typed as the phone's
# step turns over, or read on a phone a few seconds behind, still signs in (allauth's default
# is the current step alone). A code already used is refused all the same.
MFA_TOTP_TOLERANCE = 1
# "Download my data": how long the link to a finished export works.
ACCOUNT_EXPORT_LINK_SECONDS = env.int("ACCOUNT_EXPORT_LINK_SECONDS", default=24 * 3600)
LOGIN_REDIRECT_URL = "/account/"

# ORCID sign-in and connected accounts (allauth's ORCID provider, public API, /authenticate).
# ORCID_SANDBOX switches every ORCID URL to sandbox.orcid.org for testing against ORCID's
# sandbox; production uses orcid.org. Keys come from the ORCID developer tools.
ORCID_SANDBOX = env.bool("ORCID_SANDBOX", default=False)
ORCID_BASE_DOMAIN = "sandbox.orcid.org" if ORCID_SANDBOX else "orcid.org"
# ORCID's public API, read by the ORCID importer (ingest.orcid.client).
ORCID_PUBLIC_API_URL = env.str(
    "ORCID_PUBLIC_API_URL",
    default="https://pub.sandbox.orcid.org/v3.0" if ORCID_SANDBOX else "https://pub.orcid.org/v3.0",
)
ORCID_CLIENT_ID = env.str("ORCID_CLIENT_ID", default="")
ORCID_CLIENT_SECRET = env.str("ORCID_CLIENT_SECRET", default="")
SOCIALACCOUNT_PROVIDERS = {
    "orcid": {
        "BASE_DOMAIN": ORCID_BASE_DOMAIN,
        "MEMBER_API": False,
        "APPS": (
            [{"client_id": ORCID_CLIENT_ID, "secret": ORCID_CLIENT_SECRET}]
            if ORCID_CLIENT_ID
            else []
        ),
    }
}
# An ORCID record's email is not proof of owning that address: it is verified here first, and
# an ORCID login never takes over an existing account by matching its email.
SOCIALACCOUNT_EMAIL_VERIFICATION = "mandatory"
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_STORE_TOKENS = False
