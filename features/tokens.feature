Feature: Obtaining tokens
  The service is its own OAuth 2.0 authorization server. A client
  application, identified by its client id and secret, exchanges a user's
  email and password for an access token and a refresh token at the token
  endpoint, and later exchanges the refresh token for a new access token.

  The client proves who it is with HTTP Basic authentication; the user's
  credentials travel as form parameters in the body.

  Rule: The password grant returns both tokens in one exchange

    @spec @TOK-1 @TOK-3 @TOK-5 @TOK-7 @ACC-1 @CLI-4 @SVC-1
    Scenario: A user exchanges their email and password for tokens
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then a token is issued
      And the token type is "bearer"
      And the granted scope is "read write"
      And the access token expires within 600 seconds
      And a refresh token is issued
      And the access token is accepted by the resource server

    @spec @TOK-6 @SVC-4
    Scenario: No session or CSRF token is needed before asking for a token
      Given the client has not visited the service before
      When the client asks for the user's token
      Then a token is issued
      And no answer in this scenario set a cookie

    @spec @CLI-1
    Scenario: One client id serves more than one user of the application
      When the client asks for the other user's token
      Then a token is issued
      When the client asks for the user's token
      Then a token is issued

    @spec @TOK-15
    Scenario Outline: An answer that holds a token must not be cached: <request>
      When the client asks for <request>
      Then a token is issued
      And the answer must not be cached

      Examples:
        | request                        |
        | the user's token               |
        | a refresh of the refresh token |

    @ref @TOK-11
    Scenario: Token responses also tell HTTP/1.0 caches not to cache them
      When the client asks for the user's token
      Then a token is issued
      And the answer's Pragma says "no-cache"

    @ref @TOK-3 @CLI-4
    Scenario: A client may ask for fewer scopes than it is registered for
      When the client asks for the user's token with the scope "read"
      Then a token is issued
      And the granted scope is "read"

  Rule: The refresh grant yields a new access token

    @spec @TOK-4 @TOK-8
    Scenario: A refresh token, sent as "token", yields a new access token that works
      Given the user has a token
      When the client asks for a refresh of the refresh token
      Then a token is issued
      And the new access token differs from the previous one
      And the access token is accepted by the resource server

    @spec @TOK-8 @writes
    Scenario Outline: A token from a refresh acts for <who> as the token from the password grant did
      Given <who> has created an event
      And <who> has refreshed their token
      When <who> reads the event
      Then the answer offers the link "update-event"
      When <who> lists the events
      Then the answer offers the link "create-new-event"
      When <who> updates the event through its "update-event" link, renaming it "Updated after a refresh"
      Then the answer has a success status

      Examples:
        | who            |
        | the user       |
        | the other user |

    @spec @TOK-4 @TOK-8
    Scenario: The refresh token a client holds after a refresh yields another access token
      Given the user has a token
      And the user has refreshed their token
      When the client asks for a refresh of the refresh token
      Then a token is issued
      And the access token is accepted by the resource server

    @ref @TOK-4
    Scenario: The refresh token may also be sent as "refresh_token", its name in RFC 6749
      Given the user has a token
      When the client asks for a token with:
        | grant_type    | refresh_token     |
        | refresh_token | the refresh token |
      Then a token is issued

    @ref @TOK-4
    Scenario: Refreshing revokes the access token it replaces
      Given the user has a token
      When the client asks for a refresh of the refresh token
      Then a token is issued
      And the previous access token is refused by the resource server
      And the access token is accepted by the resource server
