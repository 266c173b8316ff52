"""Print a user's name: python3 cli.py ID"""

import sys

import users


def main() -> None:
    print(users.get_user(int(sys.argv[1]))["name"])


if __name__ == "__main__":
    main()
