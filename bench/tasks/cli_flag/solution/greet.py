"""greet.py NAME [--shout] — print a greeting."""

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description="Print a greeting.")
    parser.add_argument("name")
    parser.add_argument("--shout", action="store_true", help="print it in upper case")
    args = parser.parse_args()
    message = f"Hello, {args.name}!"
    print(message.upper() if args.shout else message)


if __name__ == "__main__":
    main()
