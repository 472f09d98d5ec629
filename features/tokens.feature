Feature: Obtaining tokens
  The service is its own OAuth 2.0 authorization server. A client
  application, identified by its client id and secret, exchanges a user's
  email and password for an access token and a refresh token at the token
  endpoint, and later exchanges the refresh token for a new access token.

  The client proves who it is with HTTP Basic authentication; the user's
  credentials travel as form parameters in the body.

  Rule: The password grant returns both tokens in one exchange

    @spec @TOK-1 @TOK-3 @TOK-5 @TOK-6 @TOK-7 @ACC-1 @CLI-4 @SVC-1
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

    @ref @TOK-11
    Scenario: Token responses must not be cached
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then a token is issued
      And the answer must not be cached

    @ref @TOK-3 @CLI-4
    Scenario: A client may ask for fewer scopes than it is registered for
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
        | scope      | read                |
      Then a token is issued
      And the granted scope is "read"

    @ref @TOK-11 @CLI-4
    Scenario: A scope the client is not registered for is refused
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
        | scope      | read admin          |
      Then the token request is refused with status 400 and error "invalid_scope"

    @spec @TOK-3
    Scenario Outline: Every parameter of the password grant is required
      When the client asks for a token with everything but "<parameter>":
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then no token is issued

      Examples:
        | parameter  |
        | grant_type |
        | username   |
        | password   |

    @ref @TOK-3 @TOK-11
    Scenario: A missing parameter is an invalid request
      When the client asks for a token with:
        | grant_type | password         |
        | username   | the user's email |
      Then the token request is refused with status 400 and error "invalid_request"
      And the error description mentions "password"

  Rule: Wrong user credentials get no token

    @spec @TOK-3
    Scenario: A wrong password gets no token
      When the client asks for a token with:
        | grant_type | password         |
        | username   | the user's email |
        | password   | a wrong password |
      Then no token is issued

    @ref @TOK-11
    Scenario: A wrong password is an invalid grant
      When the client asks for a token with:
        | grant_type | password         |
        | username   | the user's email |
        | password   | a wrong password |
      Then the token request is refused with status 400 and error "invalid_grant"

    @ref @TOK-11
    Scenario: An unknown user is answered exactly like a wrong password
      When the client asks for a token with:
        | grant_type | password            |
        | username   | an unknown email    |
        | password   | the user's password |
      Then the token request is refused with status 400 and error "invalid_grant"

  Rule: The client authenticates with HTTP Basic, and only with its own credentials

    @spec @TOK-1 @CLI-2
    Scenario: A wrong client secret gets no token
      Given the client authenticates with a wrong secret
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then no token is issued

    @ref @TOK-11 @CLI-2
    Scenario: A wrong client secret is an invalid client, challenged for Basic authentication
      Given the client authenticates with a wrong secret
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then the token request is refused with status 401 and error "invalid_client"
      And the answer challenges the caller to authenticate with "Basic"

    @spec @TOK-1
    Scenario: A token request without client authentication gets no token
      Given the client sends no client credentials
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then no token is issued

    @ref @TOK-1 @TOK-11
    Scenario: A token request without client authentication is refused
      Given the client sends no client credentials
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then the token request is refused with status 401 and error "invalid_client"

    @spec @TOK-10 @CLI-1
    Scenario: A user's email and password do not authenticate a client
      Given the client authenticates with the user's email and password
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then no token is issued

    @spec @TOK-10 @CLI-1
    Scenario: Client credentials do not work as a user's username and password
      When the client asks for a token with:
        | grant_type | password             |
        | username   | the client id        |
        | password   | the client secret    |
      Then no token is issued

    @spec @CLI-1
    Scenario: One client id serves every user of the application
      When the client asks for a token with:
        | grant_type | password                  |
        | username   | the other user's email    |
        | password   | the other user's password |
      Then a token is issued
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then a token is issued

  Rule: The body is form-encoded, and no CSRF token is needed

    @spec @TOK-2
    Scenario: A JSON body gets no token
      When the client asks for a token with a JSON body:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then no token is issued

    @ref @TOK-2 @TOK-11
    Scenario: A JSON body is an invalid request
      When the client asks for a token with a JSON body:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then the token request is refused with status 400 and error "invalid_request"
      And the error description mentions "form-encoded"

    @spec @TOK-6 @SVC-4
    Scenario: No session or CSRF token is needed before asking for a token
      Given the client has not visited the service before
      When the client asks for a token with:
        | grant_type | password            |
        | username   | the user's email    |
        | password   | the user's password |
      Then a token is issued
      And no answer in this scenario set a cookie

  Rule: The refresh grant yields a new access token

    @spec @TOK-4 @TOK-8
    Scenario: A refresh token, sent as "token", yields a new access token that works
      Given the user has a token
      When the client asks for a token with:
        | grant_type | refresh_token     |
        | token      | the refresh token |
      Then a token is issued
      And the new access token differs from the previous one
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
      When the client asks for a token with:
        | grant_type | refresh_token     |
        | token      | the refresh token |
      Then a token is issued
      And the previous access token is refused by the resource server
      And the access token is accepted by the resource server

    @spec @TOK-4
    Scenario: A made-up refresh token gets no token
      When the client asks for a token with:
        | grant_type | refresh_token           |
        | token      | a made-up refresh token |
      Then no token is issued

    @ref @TOK-4 @TOK-11
    Scenario: A made-up refresh token is an invalid grant
      When the client asks for a token with:
        | grant_type | refresh_token           |
        | token      | a made-up refresh token |
      Then the token request is refused with status 400 and error "invalid_grant"
      And the answer does not repeat the refresh token

    @spec @TOK-4
    Scenario: An access token is not a refresh token
      Given the user has a token
      When the client asks for a token with:
        | grant_type | refresh_token    |
        | token      | the access token |
      Then no token is issued

  Rule: Only the password and refresh_token grants exist

    @spec @TOK-9 @CLI-3
    Scenario Outline: The <grant type> grant is not supported
      When the client asks for a token with:
        | grant_type | <grant type>        |
        | username   | the user's email    |
        | password   | the user's password |
      Then no token is issued

      Examples:
        | grant type         |
        | client_credentials |
        | authorization_code |
        | implicit           |
        | something_else     |

    @ref @TOK-9 @TOK-11
    Scenario: An unknown grant type is an unsupported grant type
      When the client asks for a token with:
        | grant_type | client_credentials |
      Then the token request is refused with status 400 and error "unsupported_grant_type"

    @ref @TOK-11
    Scenario: The token endpoint only takes POST
      When a caller reads the token endpoint with GET
      Then the answer has status 405
      And the answer allows only "POST"

    @ref @TOK-12 @CLI-3
    Scenario: The authorization endpoint exists but issues nothing
      When a caller asks the authorization endpoint for a code for the client
      Then the answer is an error with status 400
      And the answer does not redirect
      And no token is issued
