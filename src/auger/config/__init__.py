"""Configuration, the public way: auger's home, the settings files, credentials and sign-in,
the providers and models, trust; all from an injected env and home. Imported at first use."""

from __future__ import annotations

from auger._lazy import exports, names

_TABLE = {
    "errors": ("ConfigError",),
    "paths": ("auger_home", "display"),
    "project": ("project_root",),
    "settings": ("load_settings", "save_setting"),
    "trust": ("TrustStore",),
    "credentials": (
        "load_credentials",
        "load_signin",
        "remove_credential",
        "save_credential",
        "save_signin",
        "signed_in",
        "with_credentials",
    ),
    "providers": ("BUILTIN", "key_variable", "keyed_providers"),
    "models": ("choose_model", "provider_config", "split_spec"),
    "schema": ("MODE_ALIASES", "PERMISSION_MODES", "SANDBOX_MODES"),
    "signin.flows": ("sign_in", "sign_out"),
    "signin.web": ("SignInError",),
}
__all__ = names(_TABLE)
__getattr__ = exports(__name__, _TABLE)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names, typed, for mypy (`as`: re-exported)
    from auger.config.credentials import load_credentials as load_credentials
    from auger.config.credentials import load_signin as load_signin
    from auger.config.credentials import remove_credential as remove_credential
    from auger.config.credentials import save_credential as save_credential
    from auger.config.credentials import save_signin as save_signin
    from auger.config.credentials import signed_in as signed_in
    from auger.config.credentials import with_credentials as with_credentials
    from auger.config.errors import ConfigError as ConfigError
    from auger.config.models import choose_model as choose_model
    from auger.config.models import provider_config as provider_config
    from auger.config.models import split_spec as split_spec
    from auger.config.paths import auger_home as auger_home
    from auger.config.paths import display as display
    from auger.config.project import project_root as project_root
    from auger.config.providers import BUILTIN as BUILTIN
    from auger.config.providers import key_variable as key_variable
    from auger.config.providers import keyed_providers as keyed_providers
    from auger.config.schema import MODE_ALIASES as MODE_ALIASES
    from auger.config.schema import PERMISSION_MODES as PERMISSION_MODES
    from auger.config.schema import SANDBOX_MODES as SANDBOX_MODES
    from auger.config.settings import load_settings as load_settings
    from auger.config.settings import save_setting as save_setting
    from auger.config.signin.flows import sign_in as sign_in
    from auger.config.signin.flows import sign_out as sign_out
    from auger.config.signin.web import SignInError as SignInError
    from auger.config.trust import TrustStore as TrustStore
